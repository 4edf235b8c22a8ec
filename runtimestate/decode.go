package runtimestate

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/kubeletlogic/kubeletlogic/internal/yamljson"
)

// FromJSON decodes a Pod from JSON with camelCase keys and validates it.
// Unknown keys are an error, so that a misspelt field does not silently
// read as its zero value, and so is a state no runtime can report (an
// unknown container state, duplicate IDs, sandboxes or containers not
// newest first: see Validate). The result is not reordered. To read a
// state without validating it, decode it with encoding/json into a Pod.
func FromJSON(data []byte) (*Pod, error) {
	p, err := decodeJSON(data)
	if err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("runtimestate: %w", err)
	}
	return p, nil
}

// decodeJSON decodes a Pod as FromJSON does, without validating it.
func decodeJSON(data []byte) (*Pod, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Pod
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("runtimestate: %w", err)
	}
	return &p, nil
}

// FromYAML decodes a Pod from YAML (or JSON) with camelCase keys and
// validates it, as FromJSON does.
func FromYAML(data []byte) (*Pod, error) {
	js, err := yamljson.ToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("runtimestate: %w", err)
	}
	return FromJSON(js)
}
