module zoneguard.example/bench/nullhook

go 1.22
