package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/teammem/teammem/server"
)

var _ server.DeviceStore = (*DB)(nil)

// StartDeviceAuthorization records a pending device authorization, and
// drops the expired ones (server.DeviceStore).
func (db *DB) StartDeviceAuthorization(ctx context.Context, d server.DeviceAuthorization) error {
	return db.exec(ctx, "start device authorization", func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_device_authorizations WHERE expires_at <= ?`, micros(d.CreatedAt)); err != nil {
			return wrap("drop expired device authorizations", err)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO oauth_device_authorizations (device_code_hash, user_code, client_id,
			client_name, resource, created_at, expires_at, interval_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			d.DeviceCodeHash, d.UserCode, d.ClientID, d.ClientName, d.Resource, micros(d.CreatedAt), micros(d.ExpiresAt),
			d.Interval.Microseconds())
		return wrap("start device authorization", err)
	})
}

const deviceColumns = `device_code_hash, user_code, client_id, client_name, resource, created_at, expires_at,
	interval_us, last_polled_at, state, code_hash`

func scanDevice(row interface{ Scan(...any) error }) (server.DeviceAuthorization, error) {
	var d server.DeviceAuthorization
	var created, expires, interval, polled int64
	err := row.Scan(&d.DeviceCodeHash, &d.UserCode, &d.ClientID, &d.ClientName, &d.Resource, &created, &expires,
		&interval, &polled, &d.State, &d.CodeHash)
	d.CreatedAt, d.ExpiresAt, d.Interval = fromMicros(created), fromMicros(expires), time.Duration(interval)*time.Microsecond
	if polled != 0 {
		d.LastPolledAt = fromMicros(polled)
	}
	return d, err
}

// PendingDevice returns a pending device authorization by its user code
// (server.DeviceStore).
func (db *DB) PendingDevice(ctx context.Context, userCode string, now time.Time) (server.DeviceAuthorization, error) {
	d, err := scanDevice(db.read.QueryRowContext(ctx, `SELECT `+deviceColumns+` FROM oauth_device_authorizations
		WHERE user_code = ? AND state = 'pending' AND expires_at > ?`, userCode, micros(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("device authorization: %w", server.ErrNotFound)
	}
	return d, wrap("read device authorization", err)
}

// DecideDevice records the person's answer (server.DeviceStore).
func (db *DB) DecideDevice(ctx context.Context, userCode, codeHash string, now time.Time) error {
	state := server.DeviceApproved
	if codeHash == "" {
		state = server.DeviceDenied
	}
	return db.exec(ctx, "decide device authorization", func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE oauth_device_authorizations SET state = ?, code_hash = ?
			WHERE user_code = ? AND state = 'pending' AND expires_at > ?`, string(state), codeHash, userCode, micros(now))
		if err != nil {
			return wrap("decide device authorization", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return fmt.Errorf("device authorization: %w", server.ErrNotFound)
		}
		return nil
	})
}

// PollDevice records a poll of a device code (server.DeviceStore).
func (db *DB) PollDevice(ctx context.Context, deviceCodeHash string, now time.Time) (server.DeviceAuthorization, error) {
	var d server.DeviceAuthorization
	var outcome error
	err := db.exec(ctx, "poll device authorization", func(ctx context.Context, tx *sql.Tx) error {
		var err error
		d, err = scanDevice(tx.QueryRowContext(ctx, `SELECT `+deviceColumns+` FROM oauth_device_authorizations
			WHERE device_code_hash = ?`, deviceCodeHash))
		if errors.Is(err, sql.ErrNoRows) {
			outcome = fmt.Errorf("device authorization: %w", server.ErrNotFound)
			return nil
		}
		if err != nil {
			return wrap("read device authorization", err)
		}
		next, polled := d.Poll(now)
		outcome = polled
		if polled != nil && !errors.Is(polled, server.ErrSlowDown) {
			return nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE oauth_device_authorizations SET interval_us = ?, last_polled_at = ?, state = ?
			WHERE device_code_hash = ?`, next.Interval.Microseconds(), micros(next.LastPolledAt), string(next.State), deviceCodeHash)
		return wrap("poll device authorization", err)
	})
	if err == nil {
		err = outcome
	}
	return d, err
}
