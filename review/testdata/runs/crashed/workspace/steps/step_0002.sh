sleep 6; echo finished
