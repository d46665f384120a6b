echo hello > greeting.txt && cat greeting.txt
