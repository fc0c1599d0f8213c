package main

import (
	"context"
	"errors"
)

func runAuditServed(context.Context, []string, env) error {
	return errors.New("audit served: the served records are not recorded yet")
}
