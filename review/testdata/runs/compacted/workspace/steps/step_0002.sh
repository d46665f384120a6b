echo note > note.txt
