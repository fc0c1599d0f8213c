package signin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// deviceGrantType is the device authorization grant's grant type.
const deviceGrantType = "urn:ietf:params:oauth:grant-type:device_code"

// slowDownStep is how much a slow_down answer adds to the interval.
const slowDownStep = 5 * time.Second

// DeviceCode is what the person is to do: open VerificationURI (or
// VerificationURIComplete, which carries the code) in any browser, and
// enter UserCode.
type DeviceCode struct {
	UserCode                string
	VerificationURI         string
	VerificationURIComplete string
	ExpiresIn               time.Duration
}

// DeviceOptions configure a device login.
type DeviceOptions struct {
	Server string // the server's base URL
	// Show tells the person the code and where to enter it.
	Show func(DeviceCode)
	// ClientName names the agent on the device page and "Your sessions".
	ClientName string
	HTTPClient *http.Client
}

// deviceAnswer is the device authorization endpoint's answer.
type deviceAnswer struct {
	DeviceCode      string `json:"device_code"`
	UserCode        string `json:"user_code"`
	VerificationURI string `json:"verification_uri"`
	Complete        string `json:"verification_uri_complete"`
	ExpiresIn       int    `json:"expires_in"`
	Interval        int    `json:"interval"`
	Error           string `json:"error"`
	Description     string `json:"error_description"`
}

// DeviceLogin signs in by the device authorization grant: it registers
// the agent, shows the person a code, and polls the token endpoint until
// they answer, the code expires or ctx ends.
func DeviceLogin(ctx context.Context, o DeviceOptions) (Tokens, error) {
	hc, base, md, err := discover(ctx, o.HTTPClient, o.Server)
	if err != nil {
		return Tokens{}, err
	}
	o.HTTPClient = hc
	if md.Device == "" {
		return Tokens{}, errors.New("the server offers no device sign-in: log in through a browser, or with a token on stdin")
	}
	clientID, err := register(ctx, o.HTTPClient, md.Registration, o.ClientName, "")
	if err != nil {
		return Tokens{}, err
	}
	d, err := startDevice(ctx, o.HTTPClient, md.Device, clientID, base)
	if err != nil {
		return Tokens{}, err
	}
	o.Show(DeviceCode{UserCode: d.UserCode, VerificationURI: d.VerificationURI, VerificationURIComplete: d.Complete,
		ExpiresIn: time.Duration(d.ExpiresIn) * time.Second})
	t := Tokens{Server: base, ClientID: clientID, TokenEndpoint: md.Token}
	return t, t.pollDevice(ctx, o.HTTPClient, d, clientID)
}

// startDevice asks the server for a device code and a user code.
func startDevice(ctx context.Context, hc *http.Client, endpoint, clientID, resource string) (deviceAnswer, error) {
	form := url.Values{"client_id": {clientID}, "resource": {resource}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return deviceAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := hc.Do(req)
	if err != nil {
		return deviceAnswer{}, fmt.Errorf("start the device sign-in: %w", err)
	}
	defer resp.Body.Close()
	var d deviceAnswer
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&d); err != nil || resp.StatusCode != http.StatusOK ||
		d.DeviceCode == "" || d.UserCode == "" {
		return d, fmt.Errorf("start the device sign-in: status %d %s %s", resp.StatusCode, d.Error, d.Description)
	}
	return d, nil
}

// pollDevice polls the token endpoint every interval (longer after each
// slow_down) until the person answers.
func (t *Tokens) pollDevice(ctx context.Context, hc *http.Client, d deviceAnswer, clientID string) error {
	interval := max(time.Duration(d.Interval)*time.Second, time.Second)
	form := url.Values{"grant_type": {deviceGrantType}, "device_code": {d.DeviceCode}, "client_id": {clientID}}
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the code to be entered: %w", ctx.Err())
		case <-time.After(interval):
		}
		err := t.grant(ctx, hc, form)
		var refused *RefusedError
		if !errors.As(err, &refused) {
			return err
		}
		switch refused.Code {
		case "authorization_pending":
		case "slow_down":
			interval += slowDownStep
		case "access_denied":
			return errors.New("the sign-in was declined in the browser")
		case "expired_token":
			return errors.New("the code expired before it was entered; log in again")
		default:
			return err
		}
	}
}
