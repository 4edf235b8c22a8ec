// Package yamljson turns one YAML (or JSON) document into JSON for strict
// decoding into Go types, with apimachinery's YAML support only.
package yamljson

import (
	"encoding/json"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// ToJSON returns data as JSON. Valid JSON is returned as it is; anything
// else is read as YAML, flow style included ({a: 1} is YAML, not broken
// JSON), and a duplicate key is an error.
func ToJSON(data []byte) ([]byte, error) {
	if json.Valid(data) {
		return data, nil
	}
	var v any
	if err := utilyaml.UnmarshalStrict(data, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
