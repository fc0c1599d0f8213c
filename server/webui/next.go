package webui

import (
	"net/http"
	"net/url"
	"strings"
)

// The sign-in page brings the browser back to the page that sent it there
// (the consent page of an OAuth client, say): the page's path rides along
// as next, which is followed only when it is a path of the UI itself.

// loginURL is the sign-in page, with the request's page as next.
func loginURL(r *http.Request) string {
	next := r.URL.RequestURI()
	if next == prefix+"/" || !safeNext(next) {
		return prefix + "/login"
	}
	return prefix + "/login?next=" + url.QueryEscape(next)
}

// safeNext reports whether next is a path of the UI: no scheme, no host,
// no backslash a browser would read as a slash.
func safeNext(next string) bool {
	if !strings.HasPrefix(next, prefix+"/") || strings.ContainsAny(next, "\\\r\n\t") || strings.HasPrefix(next, prefix+"/login") {
		return false
	}
	u, err := url.Parse(next)
	return err == nil && u.Scheme == "" && u.Host == "" && u.User == nil && strings.HasPrefix(u.Path, prefix+"/") &&
		!strings.Contains(u.Path, "/../") && !strings.HasSuffix(u.Path, "/..")
}

// afterLogin is where a signed-in browser goes: next when it is safe, the
// UI's front page otherwise.
func afterLogin(next string) string {
	if safeNext(next) {
		return next
	}
	return prefix + "/"
}
