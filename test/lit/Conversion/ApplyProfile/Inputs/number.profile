pbc-profile 1
root p.Hot payloads 1 bytes 2
message p.Hot instances 1 reads x
