pbc-profile 1
message p.Hot instances 1 reads 1
