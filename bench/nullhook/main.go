// nullhook is the least a webhook can be: it reads each AdmissionReview it is sent and admits
// it, with no check, over HTTPS. Registered in zoneguard's place, it measures what any webhook
// costs a create, so that bench/apiserver-overhead.sh can tell zoneguard's share of the overhead
// from the API server's.
//
// With -patches REPORT (a `zoneguard check --output json` report on one object of each kind) it
// answers a review sent to /mutate with the patch zoneguard gave that kind's object in the
// report, the object's name put in place of the report's: the API server then applies the same
// patch and makes the same calls as with zoneguard (a Service given an external-dns annotation
// is also sent to the validating webhook), and only the deciding differs. Without it, no patch.
//
// GET /count answers the number of reviews admitted so far (the script's sign that the API
// server calls it, or has stopped calling it); GET /protocols, how many reviews came over each
// HTTP version (the API server speaks HTTP/2 to a webhook URL on a loopback host, HTTP/1.1 to any
// other); GET /patched, how many answers carried a patch, by kind. Only the standard library.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
)

// review holds the fields an answer needs: the request's uid, which the API server checks
// against the answer's, and the object's kind and name, for its patch.
type review struct {
	Request struct {
		UID  string `json:"uid"`
		Name string `json:"name"`
		Kind struct {
			Kind string `json:"kind"`
		} `json:"kind"`
	} `json:"request"`
}

// sample is the patch zoneguard answered an object of one kind with, and that object's name.
type sample struct {
	name  []byte
	patch []byte
}

// readPatches reads a `zoneguard check --output json` report: each result's patch, by kind
// (results without a patch left out).
func readPatches(file string) (map[string]sample, error) {
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var report struct {
		Results []struct {
			Kind  string          `json:"kind"`
			Name  string          `json:"name"`
			Patch json.RawMessage `json:"patch"`
		} `json:"results"`
	}
	if err := json.Unmarshal(text, &report); err != nil {
		return nil, fmt.Errorf("%s: not a zoneguard check report: %w", file, err)
	}
	patches := map[string]sample{}
	for _, r := range report.Results {
		if len(r.Patch) == 0 || string(r.Patch) == "null" {
			continue
		}
		var patch bytes.Buffer
		if err := json.Compact(&patch, r.Patch); err != nil {
			return nil, err
		}
		patches[r.Kind] = sample{[]byte(r.Name), patch.Bytes()}
	}
	return patches, nil
}

// counts counts events by key, for GET: one "KEY N" line per key.
type counts struct {
	mu sync.Mutex
	n  map[string]int64
}

func (c *counts) add(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int64{}
	}
	c.n[key]++
}

func (c *counts) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, n := range c.n {
		fmt.Fprintln(w, key, n)
	}
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to serve HTTPS on")
	certFile := flag.String("cert", "", "serving certificate (PEM)")
	keyFile := flag.String("key", "", "serving key (PEM)")
	patchFile := flag.String("patches", "", "answer /mutate with the patches of this zoneguard check --output json report")
	flag.Parse()
	if *certFile == "" || *keyFile == "" {
		log.Fatal("nullhook: -cert and -key are required")
	}
	patches := map[string]sample{}
	if *patchFile != "" {
		var err error
		if patches, err = readPatches(*patchFile); err != nil {
			log.Fatal("nullhook: ", err)
		}
		log.Printf("nullhook: answering /mutate with a patch for %d kinds", len(patches))
	}
	var admitted atomic.Int64
	var byProto, patched counts
	mux := http.NewServeMux()
	mux.HandleFunc("GET /count", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, admitted.Load())
	})
	mux.Handle("GET /protocols", &byProto)
	mux.Handle("GET /patched", &patched)
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		byProto.add(r.Proto)
		var in review
		if err := json.NewDecoder(io.LimitReader(r.Body, 8<<20)).Decode(&in); err != nil {
			http.Error(w, "not an AdmissionReview: "+err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		response := map[string]any{"uid": in.Request.UID, "allowed": true}
		if s, ok := patches[in.Request.Kind.Kind]; ok && r.URL.Path == "/mutate" {
			response["patchType"] = "JSONPatch"
			response["patch"] = bytes.ReplaceAll(s.patch, s.name, []byte(in.Request.Name)) // base64
			patched.add(in.Request.Kind.Kind)
		}
		out := map[string]any{
			"apiVersion": "admission.k8s.io/v1",
			"kind":       "AdmissionReview",
			"response":   response,
		}
		if err := json.NewEncoder(w).Encode(out); err == nil {
			admitted.Add(1)
		}
	})
	server := &http.Server{Addr: *listen, Handler: mux}
	log.Fatal(server.ListenAndServeTLS(*certFile, *keyFile))
}
