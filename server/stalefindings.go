package server

import (
	"encoding/json"
	"fmt"
)

// staleFindingJSON is how a store keeps a finding (the stores' one
// encoding of StaleFinding).
type staleFindingJSON struct {
	Reference string `json:"reference"`
	Line      int    `json:"line,omitempty"`
	Reason    string `json:"reason"`
	Since     string `json:"since,omitempty"`
	RenamedTo string `json:"renamedTo,omitempty"`
}

// EncodeStaleFindings is the stored form of findings: a JSON array.
func EncodeStaleFindings(findings []StaleFinding) ([]byte, error) {
	out := make([]staleFindingJSON, len(findings))
	for i, f := range findings {
		out[i] = staleFindingJSON(f)
	}
	return json.Marshal(out)
}

// DecodeStaleFindings reads what EncodeStaleFindings wrote.
func DecodeStaleFindings(data []byte) ([]StaleFinding, error) {
	if string(data) == "[]" { // every reference held: most reports, read without the decoder
		return []StaleFinding{}, nil
	}
	var in []staleFindingJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("decode stale-reference findings: %w", err)
	}
	out := make([]StaleFinding, len(in))
	for i, f := range in {
		out[i] = StaleFinding(f)
	}
	return out, nil
}
