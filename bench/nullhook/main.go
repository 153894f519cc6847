// nullhook is the least a webhook can be: it reads each AdmissionReview it is sent and admits
// it, with no patch and no check, over HTTPS (HTTP/2, as the API server speaks it). Registered
// in zoneguard's place, it measures what any webhook costs a create, so that
// bench/apiserver-overhead.sh can tell zoneguard's share of the overhead from the API server's.
//
// GET /count answers the number of reviews admitted so far (the script's sign that the API
// server calls it, or has stopped calling it); GET /protocols, how many reviews came over each
// HTTP version (the API server speaks HTTP/2 to a webhook URL on a loopback host, HTTP/1.1 to any
// other). Only the standard library.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"sync"
	"sync/atomic"
)

// review holds the one field an answer needs: the request's uid, which the API server
// checks against the answer's.
type review struct {
	Request struct {
		UID string `json:"uid"`
	} `json:"request"`
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to serve HTTPS on")
	certFile := flag.String("cert", "", "serving certificate (PEM)")
	keyFile := flag.String("key", "", "serving key (PEM)")
	flag.Parse()
	if *certFile == "" || *keyFile == "" {
		log.Fatal("nullhook: -cert and -key are required")
	}
	var admitted atomic.Int64
	var mu sync.Mutex
	byProto := map[string]int64{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /count", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, admitted.Load())
	})
	mux.HandleFunc("GET /protocols", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		for proto, n := range byProto {
			fmt.Fprintln(w, proto, n)
		}
	})
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		byProto[r.Proto]++
		mu.Unlock()
		var in review
		if err := json.NewDecoder(io.LimitReader(r.Body, 8<<20)).Decode(&in); err != nil {
			http.Error(w, "not an AdmissionReview: "+err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		out := map[string]any{
			"apiVersion": "admission.k8s.io/v1",
			"kind":       "AdmissionReview",
			"response":   map[string]any{"uid": in.Request.UID, "allowed": true},
		}
		if err := json.NewEncoder(w).Encode(out); err == nil {
			admitted.Add(1)
		}
	})
	server := &http.Server{Addr: *listen, Handler: mux}
	log.Fatal(server.ListenAndServeTLS(*certFile, *keyFile))
}
