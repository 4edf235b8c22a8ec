package runtimestate

import (
	"bytes"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/yaml"
)

// FromJSON decodes a Pod from JSON with camelCase keys. Unknown keys are an
// error, so that a misspelt field does not silently read as its zero value.
// The result is not normalized or validated.
func FromJSON(data []byte) (*Pod, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Pod
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("runtimestate: %w", err)
	}
	return &p, nil
}

// FromYAML decodes a Pod from YAML (or JSON) with camelCase keys, as
// FromJSON does.
func FromYAML(data []byte) (*Pod, error) {
	js, err := yaml.ToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("runtimestate: %w", err)
	}
	return FromJSON(js)
}
