// apiload creates and deletes Services and Ingresses against a kube-apiserver at a fixed
// concurrency and reports the create latency and throughput: what zoneguard's webhooks add
// to every `kubectl apply` (bench/apiserver-overhead.sh runs it with and without them).
//
// Each worker takes the next object, POSTs it (timed), then DELETEs it, so at most
// -concurrency objects exist at once. -sample prints the objects instead (for `zoneguard check`,
// to learn the patch zoneguard answers them with). Only the standard library: TLS client certificate
// authentication, HTTP/2 as client-go uses it.
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type object struct {
	kind, path, name, body string
}

func service(ns, name string) object {
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Service","metadata":{"name":%q,"namespace":%q,"labels":{"app.kubernetes.io/name":"apiload"}},`+
		`"spec":{"type":"LoadBalancer","selector":{"app":%q},"ports":[{"name":"https","port":443,"targetPort":8443}]}}`, name, ns, name)
	return object{"Service", "/api/v1/namespaces/" + ns + "/services", name, body}
}

func ingress(ns, name, domain string) object {
	hosts := []string{"www-" + name + "." + domain, "api-" + name + "." + domain, "static-" + name + "." + domain}
	var rules []string
	for _, h := range hosts {
		rules = append(rules, fmt.Sprintf(`{"host":%q,"http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"web","port":{"number":80}}}}]}}`, h))
	}
	body := fmt.Sprintf(`{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":%q,"namespace":%q,"labels":{"app.kubernetes.io/name":"apiload"}},`+
		`"spec":{"ingressClassName":"nginx","tls":[{"hosts":["%s"],"secretName":"web-tls"}],"rules":[%s]}}`,
		name, ns, strings.Join(hosts, `","`), strings.Join(rules, ","))
	return object{"Ingress", "/apis/networking.k8s.io/v1/namespaces/" + ns + "/ingresses", name, body}
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p/100*float64(len(sorted))+0.5) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func main() {
	server := flag.String("server", "", "API server URL (https://127.0.0.1:PORT)")
	caFile := flag.String("ca", "", "CA certificate of the API server")
	certFile := flag.String("cert", "", "client certificate")
	keyFile := flag.String("key", "", "client key")
	ns := flag.String("namespace", "team-1", "namespace to create the objects in")
	domain := flag.String("domain", "team-1.zone1.example.com", "DNS domain of the Ingress hosts")
	n := flag.Int("n", 200, "objects of each kind (Service and Ingress)")
	warmup := flag.Int("warmup", 20, "objects of each kind created first and not counted")
	concurrency := flag.Int("concurrency", 16, "workers")
	prefix := flag.String("prefix", "apiload", "object name prefix")
	raw := flag.String("raw", "", "append each counted create latency (µs) to this file")
	label := flag.String("label", "", "label printed in the RESULT line")
	sample := flag.String("sample", "", "print one Service and one Ingress of this name, as they would be created, as a YAML stream of JSON documents, and exit")
	flag.Parse()
	if *sample != "" {
		fmt.Printf("%s\n---\n%s\n", service(*ns, *sample).body, ingress(*ns, *sample, *domain).body)
		return
	}
	if *server == "" || *caFile == "" || *certFile == "" || *keyFile == "" {
		fmt.Fprintln(os.Stderr, "apiload: -server, -ca, -cert and -key are required")
		os.Exit(2)
	}
	pem, err := os.ReadFile(*caFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apiload:", err)
		os.Exit(2)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	pair, err := tls.LoadX509KeyPair(*certFile, *keyFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apiload:", err)
		os.Exit(2)
	}
	client := &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig:     &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}},
			ForceAttemptHTTP2:   true,
			MaxIdleConnsPerHost: *concurrency,
		},
	}

	do := func(method, url, body string) (int, string, error) {
		req, err := http.NewRequest(method, url, bytes.NewBufferString(body))
		if err != nil {
			return 0, "", err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		text, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(text), nil
	}

	run := func(count int, tag string) (map[string][]time.Duration, time.Duration, int64) {
		jobs := make(chan object)
		var mu sync.Mutex
		lat := map[string][]time.Duration{}
		var failed int64
		var wg sync.WaitGroup
		start := time.Now()
		for w := 0; w < *concurrency; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for o := range jobs {
					t := time.Now()
					code, text, err := do("POST", *server+o.path, o.body)
					took := time.Since(t)
					if err != nil || code != http.StatusCreated {
						if atomic.AddInt64(&failed, 1) <= 3 {
							fmt.Fprintf(os.Stderr, "apiload: create %s %s: %d %v %.300s\n", o.kind, o.name, code, err, text)
						}
						continue
					}
					mu.Lock()
					lat[o.kind] = append(lat[o.kind], took)
					mu.Unlock()
					code, text, err = do("DELETE", *server+o.path+"/"+o.name, "")
					if err != nil || (code != http.StatusOK && code != http.StatusAccepted) {
						if atomic.AddInt64(&failed, 1) <= 3 {
							fmt.Fprintf(os.Stderr, "apiload: delete %s %s: %d %v %.300s\n", o.kind, o.name, code, err, text)
						}
					}
				}
			}()
		}
		for i := 0; i < count; i++ {
			name := fmt.Sprintf("%s-%s-%d", *prefix, tag, i)
			jobs <- service(*ns, name)
			jobs <- ingress(*ns, name, *domain)
		}
		close(jobs)
		wg.Wait()
		return lat, time.Since(start), failed
	}

	run(*warmup, "w")
	lat, wall, failed := run(*n, "m")
	var all []time.Duration
	for _, kind := range []string{"Service", "Ingress"} {
		l := lat[kind]
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		fmt.Printf("%s %s creates=%d p50_ms=%.3f p99_ms=%.3f max_ms=%.3f\n", *label, kind, len(l),
			ms(percentile(l, 50)), ms(percentile(l, 99)), ms(percentile(l, 100)))
		all = append(all, l...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	if *raw != "" {
		f, err := os.OpenFile(*raw, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			for _, d := range all {
				fmt.Fprintln(f, d.Microseconds())
			}
			f.Close()
		}
	}
	fmt.Printf("RESULT label=%s creates=%d failed=%d wall_s=%.3f creates_per_s=%.1f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f\n",
		*label, len(all), failed, wall.Seconds(), float64(len(all))/wall.Seconds(),
		ms(percentile(all, 50)), ms(percentile(all, 99)), ms(percentile(all, 100)))
	if failed > 0 {
		os.Exit(1)
	}
}
