package oauth

import (
	"net/http"
	"strings"

	"github.com/teammem/teammem/server/httpkit"
)

// resourceMetadata answers RFC 9728's protected resource metadata: of the
// API at the well-known path, of /mcp at the path followed by /mcp.
func (s *Server) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	base := s.base(r)
	resource := base + strings.TrimPrefix(r.URL.Path, httpkit.WellKnownResource)
	w.Header().Set("Cache-Control", "max-age=300")
	httpkit.WriteJSON(w, http.StatusOK, map[string]any{
		"resource":                 resource,
		"authorization_servers":    []string{base},
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "teammem",
	})
}

// serverMetadata answers RFC 8414's authorization server metadata.
func (s *Server) serverMetadata(w http.ResponseWriter, r *http.Request) {
	base := s.base(r)
	w.Header().Set("Cache-Control", "max-age=300")
	md := map[string]any{
		"issuer":                                         base,
		"authorization_endpoint":                         base + PathAuthorize,
		"token_endpoint":                                 base + PathToken,
		"registration_endpoint":                          base + PathRegister,
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          s.grantTypes(),
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none"},
		"authorization_response_iss_parameter_supported": true,
		"client_id_metadata_document_supported":          true,
	}
	if s.o.Devices != nil {
		md["device_authorization_endpoint"] = base + PathDeviceAuthorization
	}
	httpkit.WriteJSON(w, http.StatusOK, md)
}

// resources are the protected resources of the server reached at base.
func resources(base string) []string { return []string{base, base + httpkit.MCPPath} }
