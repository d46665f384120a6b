echo started
