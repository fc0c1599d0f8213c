package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/teammem/teammem/server"
)

// wrap prefixes err with what failed and marks a lost or refused
// connection, or a server shutting down or overloaded, as
// server.ErrUnavailable. Context errors are kept as they are so callers can
// tell cancellation from failure.
func wrap(what string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: %w", what, err)
	case unavailable(err):
		return fmt.Errorf("%s: %w: %w", what, server.ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

func unavailable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return unavailableCode(pe.Code)
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || pgconn.SafeToRetry(err) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "closed pool")
}

// unavailableCode reports SQLSTATEs of a server that cannot serve now:
// class 08 (connection exception), 53 (insufficient resources) and the
// 57P0x shutdown codes.
func unavailableCode(code string) bool {
	return strings.HasPrefix(code, "08") || strings.HasPrefix(code, "53") ||
		code == "57P01" || code == "57P02" || code == "57P03"
}
