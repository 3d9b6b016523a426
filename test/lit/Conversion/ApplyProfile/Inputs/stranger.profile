pbc-profile 1
root q.Other payloads 1 bytes 2
message q.Other instances 1 reads 1
field 1 count 1 next 0:1
