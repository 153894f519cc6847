// Command extdns-reference reads JSON-lines cases on stdin and prints, for each,
// external-dns's own DomainFilter verdict. It is the reference side of
// crates/zoneguard-core/tests/differential.rs.
//
// Input, one object per line:
//
//	{"filters":[...],"exclusions":[...],"regexInclude":"","regexExclude":"","name":"..."}
//
// Output, one line per input line: "true", "false", or "error: <message>" when
// the case could not be evaluated (bad JSON or a regex RE2 refuses).
//
// With the argument "normalize", it reads JSON strings instead, one per line, and
// prints each name as external-dns normalises it (JSON-quoted): strip one trailing
// dot, then ToUnicode with the profile of external-dns's internal/idna package.
//
// With the argument "selector", it reads {"text":"...","sets":[{...},...]} and prints
// {"labels":[...],"setBased":[...]}: for --label-filter (labels.Parse) and for
// --annotation-filter (annotations.ParseFilter), null when the text is refused, else
// whether the selector matches each set.
//
// With the argument "template", it reads {"templates":[...],"kind":"Ingress","object":{...}}
// (kind Ingress, Service or HTTPRoute) and prints {"names":[...]} from external-dns's own
// --fqdn-template engine run on the object decoded into its typed struct, {"error":"..."}
// when the template fails on it, or {"parseError":"..."} when external-dns refuses the
// templates at start.
//
// With the argument "ttl", it reads JSON strings (values of the ttl annotation) and prints
// annotations.TTLFromAnnotations of each: the TTL in seconds, 0 where external-dns ignores it.
//
// With the argument "split", it reads JSON strings (values of the hostname annotation) and
// prints annotations.SplitHostnameAnnotation of each as a JSON list.
//
// With the argument "txt", it reads {"name":"...","prefix":"...","suffix":"...",
// "wildcardReplacement":"...","recordType":"CNAME"} and prints, JSON-quoted, the TXT registry's
// ownership name for it (registry/mapper NewAffixNameMapper(...).ToTXTName).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"

	log "github.com/sirupsen/logrus"
	"golang.org/x/net/idna"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/external-dns/endpoint"
	"sigs.k8s.io/external-dns/source/annotations"
)

// modes maps the first argument to the answer for one input line.
var modes = map[string]func([]byte) string{
	"normalize": normalized,
	"selector":  selected,
	"template":  templated,
	"ttl":       ttl,
	"split":     split,
	"txt":       txtName,
}

type testCase struct {
	Filters      []string `json:"filters"`
	Exclusions   []string `json:"exclusions"`
	RegexInclude string   `json:"regexInclude"`
	RegexExclude string   `json:"regexExclude"`
	Name         string   `json:"name"`
}

func main() {
	// external-dns warns on every name that is not a valid IDN; only verdicts matter here.
	log.SetLevel(log.ErrorLevel)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1024*1024), 64*1024*1024)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	answer := verdict
	if len(os.Args) > 1 {
		var known bool
		if answer, known = modes[os.Args[1]]; !known {
			fmt.Fprintln(os.Stderr, "unknown mode:", os.Args[1])
			os.Exit(2)
		}
	}
	for in.Scan() {
		fmt.Fprintln(out, answer(in.Bytes()))
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "reading stdin:", err)
		out.Flush()
		os.Exit(1)
	}
}

// verdict evaluates one JSON-encoded case.
func verdict(line []byte) string {
	var c testCase
	if err := json.Unmarshal(line, &c); err != nil {
		return "error: " + err.Error()
	}
	include, err := compileOptional(c.RegexInclude)
	if err != nil {
		return "error: regexInclude: " + err.Error()
	}
	exclude, err := compileOptional(c.RegexExclude)
	if err != nil {
		return "error: regexExclude: " + err.Error()
	}
	filter := endpoint.NewDomainFilterWithOptions(
		endpoint.WithDomainFilter(c.Filters),
		endpoint.WithDomainExclude(c.Exclusions),
		endpoint.WithRegexDomainFilter(include),
		endpoint.WithRegexDomainExclude(exclude),
	)
	return fmt.Sprint(filter.Match(c.Name))
}

// compileOptional compiles a non-empty pattern; an empty one stays nil (unset).
func compileOptional(pattern string) (*regexp.Regexp, error) {
	if pattern == "" {
		return nil, nil
	}
	return regexp.Compile(pattern)
}

// profile is sigs.k8s.io/external-dns/internal/idna.Profile (v0.22.0), which an
// outside module cannot import; endpoint.normalizeDomain calls its ToUnicode.
var profile = idna.New(
	idna.MapForLookup(),
	idna.Transitional(true),
	idna.StrictDomainName(false),
)

// normalized returns, JSON-quoted, external-dns's normalizeDomain of one JSON string.
func normalized(line []byte) string {
	var name string
	if err := json.Unmarshal(line, &name); err != nil {
		return "error: " + err.Error()
	}
	s, _ := profile.ToUnicode(strings.TrimSuffix(name, "."))
	quoted, err := json.Marshal(s)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(quoted)
}

type selectorCase struct {
	Text string              `json:"text"`
	Sets []map[string]string `json:"sets"`
}

// selected answers one selector case, JSON-encoded.
func selected(line []byte) string {
	var c selectorCase
	if err := json.Unmarshal(line, &c); err != nil {
		return "error: " + err.Error()
	}
	answer := map[string][]bool{}
	if s, err := labels.Parse(c.Text); err == nil {
		answer["labels"] = matchEach(s, c.Sets)
	}
	if s, err := annotations.ParseFilter(c.Text); err == nil {
		answer["setBased"] = matchEach(s, c.Sets)
	}
	out, err := json.Marshal(answer)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(out)
}

func matchEach(s labels.Selector, sets []map[string]string) []bool {
	out := make([]bool, len(sets))
	for i, set := range sets {
		out[i] = s.Matches(labels.Set(set))
	}
	return out
}
