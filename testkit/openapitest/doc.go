// Package openapitest checks the server's real HTTP exchanges against the
// repository's openapi.yaml. Tests load the document once with Load and call
// ValidateResponse on every request/response pair they want checked; a
// mismatch fails the test with the operation, status and the schema's
// complaint.
package openapitest
