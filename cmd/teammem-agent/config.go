package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"

	"github.com/teammem/teammem/client/userconfig"
)

// configPath returns --config, else agent.toml in the user's config
// directory.
func (c *commonFlags) configPath(e *cliEnv) (string, error) {
	if c.config != "" {
		return filepath.Abs(c.config)
	}
	p, err := userconfig.Path(e.Getenv, e.Home, runtime.GOOS)
	if err != nil {
		return "", fmt.Errorf("find the configuration file: %w; pass --config FILE", err)
	}
	return p, nil
}

// loadConfig reads the configuration file for a command that changes it.
func (c *commonFlags) loadConfig(e *cliEnv) (string, userconfig.Config, error) {
	path, err := c.configPath(e)
	if err != nil {
		return "", userconfig.Config{}, err
	}
	uc, err := userconfig.Load(path)
	return path, uc, err
}

// applyConfig reads the configuration file and fills the server and the
// token the flags and environment left unset (they win over the file);
// `inject = false` there turns --no-inject on. It
// returns the configuration read; a missing file is the empty one.
func (c *commonFlags) applyConfig(e *cliEnv) (userconfig.Config, error) {
	path, err := c.configPath(e)
	if errors.Is(err, userconfig.ErrNoConfigDir) {
		return userconfig.Config{}, nil // no home: nothing to read
	}
	if err != nil {
		return userconfig.Config{}, err
	}
	uc, err := userconfig.Load(path)
	if err != nil {
		return userconfig.Config{}, err
	}
	if c.server == "" {
		c.server = uc.Server
	}
	if c.token == "" && c.tokenFile == "" {
		c.token = uc.Token
	}
	if uc.Inject != nil && !*uc.Inject {
		c.noInject = true
	}
	return uc, nil
}
