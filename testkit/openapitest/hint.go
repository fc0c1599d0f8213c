package openapitest

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
)

// oneOfHint explains a failed oneOf of the team memory GET: it validates
// the body against the one alternative the request asked for (Hashes with
// view=hashes, TeamMemory otherwise) and returns that schema's complaint,
// or "" when there is nothing to add.
func oneOfHint(doc *openapi3.T, route *routers.Route, req *http.Request, status int, body []byte) string {
	if status != http.StatusOK || route.Method != http.MethodGet || !strings.HasSuffix(route.Path, "/team_memory") {
		return ""
	}
	name := "TeamMemory"
	if req.URL.Query().Get("view") == "hashes" {
		name = "Hashes"
	}
	ref := doc.Components.Schemas[name]
	if ref == nil || ref.Value == nil {
		return ""
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return ""
	}
	if err := ref.Value.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors()); err != nil {
		return "\nagainst " + name + ": " + err.Error()
	}
	return ""
}
