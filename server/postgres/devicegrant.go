package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
)

var _ server.DeviceStore = (*DB)(nil)

// StartDeviceAuthorization records a pending device authorization, and
// drops the expired ones (server.DeviceStore).
func (db *DB) StartDeviceAuthorization(ctx context.Context, d server.DeviceAuthorization) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	return wrap("start device authorization", pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM oauth_device_authorizations WHERE expires_at <= $1`, d.CreatedAt); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO oauth_device_authorizations (device_code_hash, user_code, client_id,
			client_name, resource, created_at, expires_at, interval_us) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			d.DeviceCodeHash, d.UserCode, d.ClientID, d.ClientName, d.Resource, d.CreatedAt, d.ExpiresAt, d.Interval.Microseconds())
		return err
	}))
}

const deviceColumns = `device_code_hash, user_code, client_id, client_name, resource, created_at, expires_at,
	interval_us, last_polled_at, state, code_hash`

func scanDevice(row pgx.Row) (server.DeviceAuthorization, error) {
	var d server.DeviceAuthorization
	var interval int64
	var polled *time.Time
	err := row.Scan(&d.DeviceCodeHash, &d.UserCode, &d.ClientID, &d.ClientName, &d.Resource, &d.CreatedAt, &d.ExpiresAt,
		&interval, &polled, &d.State, &d.CodeHash)
	d.CreatedAt, d.ExpiresAt, d.Interval = d.CreatedAt.UTC(), d.ExpiresAt.UTC(), time.Duration(interval)*time.Microsecond
	if polled != nil {
		d.LastPolledAt = polled.UTC()
	}
	return d, err
}

// PendingDevice returns a pending device authorization by its user code
// (server.DeviceStore).
func (db *DB) PendingDevice(ctx context.Context, userCode string, now time.Time) (server.DeviceAuthorization, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	d, err := scanDevice(db.pool.QueryRow(ctx, `SELECT `+deviceColumns+` FROM oauth_device_authorizations
		WHERE user_code = $1 AND state = 'pending' AND expires_at > $2`, userCode, now))
	if errors.Is(err, pgx.ErrNoRows) {
		return d, fmt.Errorf("device authorization: %w", server.ErrNotFound)
	}
	return d, wrap("read device authorization", err)
}

// DecideDevice records the person's answer (server.DeviceStore); of two
// replicas deciding at once, one does.
func (db *DB) DecideDevice(ctx context.Context, userCode, codeHash string, now time.Time) error {
	state := server.DeviceApproved
	if codeHash == "" {
		state = server.DeviceDenied
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	tag, err := db.pool.Exec(ctx, `UPDATE oauth_device_authorizations SET state = $1, code_hash = $2
		WHERE user_code = $3 AND state = 'pending' AND expires_at > $4`, string(state), codeHash, userCode, now)
	if err != nil {
		return wrap("decide device authorization", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("device authorization: %w", server.ErrNotFound)
	}
	return nil
}

// PollDevice records a poll of a device code (server.DeviceStore), the
// row locked so that of two replicas polled at once, one takes an
// approval.
func (db *DB) PollDevice(ctx context.Context, deviceCodeHash string, now time.Time) (server.DeviceAuthorization, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var d server.DeviceAuthorization
	var outcome error
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var err error
		d, err = scanDevice(tx.QueryRow(ctx, `SELECT `+deviceColumns+` FROM oauth_device_authorizations
			WHERE device_code_hash = $1 FOR UPDATE`, deviceCodeHash))
		if errors.Is(err, pgx.ErrNoRows) {
			outcome = fmt.Errorf("device authorization: %w", server.ErrNotFound)
			return nil
		}
		if err != nil {
			return err
		}
		next, polled := d.Poll(now)
		outcome = polled
		if polled != nil && !errors.Is(polled, server.ErrSlowDown) {
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE oauth_device_authorizations SET interval_us = $1, last_polled_at = $2, state = $3
			WHERE device_code_hash = $4`, next.Interval.Microseconds(), next.LastPolledAt, string(next.State), deviceCodeHash)
		return err
	})
	if err != nil {
		return d, wrap("poll device authorization", err)
	}
	return d, outcome
}
