package webui

import (
	"net/http"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

// devicePath is the verification page of the device authorization grant:
// the signed-in person enters the code a device shows (or follows the
// device's link, which carries it) and allows or denies the device.
const devicePath = "/device"

// deviceView is what the device page shows: the form asking for the code,
// the request it names, or the answer recorded.
type deviceView struct {
	Code     string // as typed, shown again in the form after a refusal
	Problem  string // why the code was refused
	Request  *server.DeviceRequest
	Grants   []string
	Answered string // "allow" or "deny" once the answer is recorded
}

// devicePage asks for the code; given one (?user_code=), it shows which
// device asks, with which grants, and the form to answer.
func (u *UI) devicePage(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	if u.devices == nil {
		return "", httpkit.NotFound("this server does not take device sign-ins")
	}
	pg.Title = "Sign in a device"
	code := r.URL.Query().Get("user_code")
	v := deviceView{Code: code}
	pg.Data = &v
	if code == "" {
		return "device", nil
	}
	req, err := u.devices.Device(r.Context(), code)
	if err != nil {
		return u.deviceRefused(w, r, pg, code, err)
	}
	v.Request = &req
	v.Grants = server.GrantStrings(callerOf(r.Context()).p.Grants)
	pg.Title = "Allow " + req.ClientName + "?"
	return "device", nil
}

// deviceRefused shows the code form again with why the code was refused,
// when the refusal's words are for the person who typed it (not a code,
// or not a pending one); any other error is an error page.
func (u *UI) deviceRefused(w http.ResponseWriter, r *http.Request, pg *page, code string, err error) (string, error) {
	var problem string
	status := httpkit.Translate(err).Status
	switch status {
	case http.StatusBadRequest:
		problem = "That is not a code this server shows: 8 letters, as XXXX-XXXX."
	case http.StatusNotFound:
		problem = "That code is unknown, already answered or expired. Start the sign-in again on the device."
	default:
		return "", err
	}
	pg.Title, pg.Data = "Sign in a device", &deviceView{Code: code, Problem: problem}
	u.render(w, r, status, "device", pg)
	return "", nil
}

// deviceDecide records the person's answer to a device's request, with
// this session's CSRF token.
func (u *UI) deviceDecide(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	if u.devices == nil {
		return "", httpkit.NotFound("this server does not take device sign-ins")
	}
	if err := u.checkForm(r); err != nil {
		return "", err
	}
	code, decision := r.PostForm.Get("user_code"), r.PostForm.Get("decision")
	var err error
	switch decision {
	case "allow":
		c := callerOf(r.Context())
		p := c.p
		p.Credential = c.signedInWith
		err = u.devices.ApproveDevice(r.Context(), code, p)
	case "deny":
		err = u.devices.DenyDevice(r.Context(), code)
	default:
		return "", errBadForm
	}
	if err != nil {
		return u.deviceRefused(w, r, pg, code, err)
	}
	pg.Title, pg.Data = "Device answered", &deviceView{Answered: decision}
	return "device", nil
}
