echo more >> note.txt; wc -l note.txt
