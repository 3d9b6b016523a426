pbc-profile 1
root p.Hot payloads 2 bytes 40
root p.Other payloads 1 bytes 3
message p.Hot instances 2 reads 9
field 1 count 2 next 3:2
field 2 count 2 next 0:2
field 3 count 4 next 3:2 2:1 4:1
field 4 count 1 next 2:1
field 9 count 3 next 1:3
message p.Gone instances 1 reads 1
field 1 count 1
