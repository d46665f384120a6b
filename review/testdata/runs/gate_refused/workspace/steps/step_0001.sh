echo hello; ls
