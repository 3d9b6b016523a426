pbc-profile 2
