package main

import (
	"encoding/json"

	"sigs.k8s.io/external-dns/registry/mapper"
	"sigs.k8s.io/external-dns/source/annotations"
)

// ttl answers external-dns's TTLFromAnnotations for one JSON string, the value of the
// ttl annotation: the TTL in seconds, 0 where external-dns ignores the value.
func ttl(line []byte) string {
	var value string
	if err := json.Unmarshal(line, &value); err != nil {
		return "error: " + err.Error()
	}
	got := annotations.TTLFromAnnotations(map[string]string{annotations.TtlKey: value}, "reference")
	return answer(int64(got))
}

// split answers external-dns's SplitHostnameAnnotation for one JSON string.
func split(line []byte) string {
	var value string
	if err := json.Unmarshal(line, &value); err != nil {
		return "error: " + err.Error()
	}
	return answer(annotations.SplitHostnameAnnotation(value))
}

type txtCase struct {
	Name                string `json:"name"`
	Prefix              string `json:"prefix"`
	Suffix              string `json:"suffix"`
	WildcardReplacement string `json:"wildcardReplacement"`
	RecordType          string `json:"recordType"`
}

// txtName answers the TXT registry's name mapper (registry/mapper AffixNameMapper.ToTXTName)
// for one case, as a JSON string.
func txtName(line []byte) string {
	var c txtCase
	if err := json.Unmarshal(line, &c); err != nil {
		return "error: " + err.Error()
	}
	m := mapper.NewAffixNameMapper(c.Prefix, c.Suffix, c.WildcardReplacement)
	return answer(m.ToTXTName(c.Name, c.RecordType))
}
