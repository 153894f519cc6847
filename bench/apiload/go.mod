module zoneguard.example/bench/apiload

go 1.22
