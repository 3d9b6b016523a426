pbc-profile 1
root p.Hot payloads 1 bytes 2
field 1 count 1
