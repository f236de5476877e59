module throttlelab.local/cluster/pause

go 1.22
