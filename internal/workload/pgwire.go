package workload

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"time"
)

// pgConn is a connection to the PostgreSQL server a workload started,
// speaking the frontend/backend protocol (version 3) itself: startup over
// the server's unix socket with trust authentication, and simple queries
// whose rows come back as text. It is all the workloads ask of a server
// (their settings, pg_stat_database, pg_stat_activity), and it keeps the
// workload package, which the guest's /init links, free of a database
// driver.
type pgConn struct {
	conn net.Conn
	r    *bufio.Reader
}

// pgMaxMessage bounds a message from the server: the workloads' queries
// answer with one short row.
const pgMaxMessage = 1 << 20

// pgDial connects to the server listening on dir's socket for port, as
// user, to database db, and waits until it is ready for a query.
func pgDial(ctx context.Context, dir, port, user, db string) (*pgConn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", filepath.Join(dir, ".s.PGSQL."+port))
	if err != nil {
		return nil, err
	}
	c := &pgConn{conn: conn, r: bufio.NewReader(conn)}
	stop := c.watch(ctx)
	defer stop()
	var b []byte
	b = binary.BigEndian.AppendUint32(b, 0) // length, set below
	b = binary.BigEndian.AppendUint32(b, 3<<16)
	for _, s := range []string{"user", user, "database", db, ""} {
		b = append(append(b, s...), 0)
	}
	binary.BigEndian.PutUint32(b, uint32(len(b)))
	if _, err := conn.Write(b); err != nil {
		conn.Close()
		return nil, err
	}
	for {
		typ, body, err := c.read()
		if err != nil {
			conn.Close()
			return nil, err
		}
		switch typ {
		case 'R':
			if len(body) < 4 {
				conn.Close()
				return nil, errors.New("postgres: short authentication message")
			}
			if m := binary.BigEndian.Uint32(body); m != 0 {
				conn.Close()
				return nil, fmt.Errorf("postgres asks for authentication method %d; the workload's server trusts its socket", m)
			}
		case 'E':
			conn.Close()
			return nil, pgError(body)
		case 'Z':
			return c, nil
		}
		// ParameterStatus, BackendKeyData, NoticeResponse: not needed.
	}
}

// watch ends the connection's reads and writes when ctx is done; the
// returned function stops watching.
func (c *pgConn) watch(ctx context.Context) func() {
	if dl, ok := ctx.Deadline(); ok {
		c.conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { c.conn.SetDeadline(time.Unix(1, 0)) })
	return func() {
		stop()
		c.conn.SetDeadline(time.Time{})
	}
}

// read reads one message: its type and body.
func (c *pgConn) read() (byte, []byte, error) {
	var h [5]byte
	if _, err := io.ReadFull(c.r, h[:]); err != nil {
		return 0, nil, fmt.Errorf("postgres: %w", err)
	}
	n := binary.BigEndian.Uint32(h[1:])
	if n < 4 || n-4 > pgMaxMessage {
		return 0, nil, fmt.Errorf("postgres: message %q of %d bytes", h[0], n)
	}
	body := make([]byte, n-4)
	if _, err := io.ReadFull(c.r, body); err != nil {
		return 0, nil, fmt.Errorf("postgres: %w", err)
	}
	return h[0], body, nil
}

// queryRow runs the simple query q and returns the text of the first
// row's columns; a query that returns no row, or a NULL column, is an
// error.
func (c *pgConn) queryRow(ctx context.Context, q string) ([]string, error) {
	stop := c.watch(ctx)
	defer stop()
	b := []byte{'Q', 0, 0, 0, 0}
	b = append(append(b, q...), 0)
	binary.BigEndian.PutUint32(b[1:], uint32(len(b)-1))
	if _, err := c.conn.Write(b); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	var row []string
	var qerr error
	for {
		typ, body, err := c.read()
		if err != nil {
			return nil, err
		}
		switch typ {
		case 'D':
			if row == nil && qerr == nil {
				if row, err = pgDataRow(body); err != nil {
					qerr = err
				}
			}
		case 'E':
			qerr = pgError(body)
		case 'Z':
			switch {
			case qerr != nil:
				return nil, qerr
			case row == nil:
				return nil, errors.New("postgres: no row")
			}
			return row, nil
		}
		// RowDescription, CommandComplete, NoticeResponse: not needed.
	}
}

// pgDataRow parses a DataRow's columns, text format.
func pgDataRow(b []byte) ([]string, error) {
	if len(b) < 2 {
		return nil, errors.New("postgres: short data row")
	}
	n := int(binary.BigEndian.Uint16(b))
	b = b[2:]
	cols := make([]string, 0, n)
	for i := range n {
		if len(b) < 4 {
			return nil, fmt.Errorf("postgres: data row cut at column %d of %d", i+1, n)
		}
		l := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		if l < 0 {
			return nil, fmt.Errorf("postgres: column %d is NULL", i+1)
		}
		if int(l) > len(b) {
			return nil, fmt.Errorf("postgres: data row cut in column %d of %d", i+1, n)
		}
		cols = append(cols, string(b[:l]))
		b = b[l:]
	}
	return cols, nil
}

// pgError makes an ErrorResponse's fields an error: its severity,
// message and SQLSTATE.
func pgError(b []byte) error {
	f := map[byte]string{}
	for len(b) > 0 && b[0] != 0 {
		code := b[0]
		v, rest, ok := strings.Cut(string(b[1:]), "\x00")
		if !ok {
			break
		}
		f[code] = v
		b = []byte(rest)
	}
	if f['M'] == "" {
		return errors.New("postgres: error without a message")
	}
	return fmt.Errorf("postgres: %s: %s (SQLSTATE %s)", f['S'], f['M'], f['C'])
}

// close says goodbye to the server and closes the connection.
func (c *pgConn) close() {
	c.conn.SetWriteDeadline(time.Now().Add(time.Second))
	c.conn.Write([]byte{'X', 0, 0, 0, 4})
	c.conn.Close()
}
