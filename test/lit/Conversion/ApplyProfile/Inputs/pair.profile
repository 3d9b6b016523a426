pbc-profile 1
root p.Hot payloads 1 bytes 2
message p.Hot instances 1 reads 1
field 1 count 1 next 2=1
