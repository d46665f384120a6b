cat note.txt
