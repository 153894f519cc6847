package main

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	networkv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"sigs.k8s.io/external-dns/source/template"
)

type templateCase struct {
	Templates []string        `json:"templates"`
	Kind      string          `json:"kind"`
	Object    json.RawMessage `json:"object"`
}

// kubeObject is what external-dns's engine executes a template on.
type kubeObject interface {
	runtime.Object
	metav1.Object
}

// templated answers one template case, JSON-encoded.
func templated(line []byte) string {
	var c templateCase
	if err := json.Unmarshal(line, &c); err != nil {
		return "error: " + err.Error()
	}
	engine, err := template.NewEngine(c.Templates, nil, nil, false)
	if err != nil {
		return answer(map[string]any{"parseError": err.Error()})
	}
	var names []string
	switch c.Kind {
	case "Ingress":
		names, err = execOn[networkv1.Ingress](engine, "ingress", c.Object)
	case "Service":
		names, err = execOn[corev1.Service](engine, "service", c.Object)
	case "HTTPRoute":
		names, err = execOn[gatewayv1.HTTPRoute](engine, "gateway-httproute", c.Object)
	default:
		return "error: unknown kind " + c.Kind
	}
	if err != nil {
		return answer(map[string]any{"error": err.Error()})
	}
	if names == nil {
		names = []string{}
	}
	return answer(map[string]any{"names": names})
}

// execOn decodes raw into a T and runs the engine's FQDN template on it, bound to source.
func execOn[T any, P interface {
	*T
	kubeObject
}](engine template.Engine, source string, raw json.RawMessage) ([]string, error) {
	obj := P(new(T))
	if err := json.Unmarshal(raw, obj); err != nil {
		return nil, err
	}
	bound, err := engine.WithSource(source)
	if err != nil {
		return nil, err
	}
	return bound.ExecFQDN(obj)
}

func answer(v any) string {
	out, err := json.Marshal(v)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(out)
}
