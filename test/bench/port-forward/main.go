// A stand-in for `kubectl port-forward pod LOCAL:REMOTE` as a process of its own: it listens on
// a local TCP port and, for each connection it accepts, opens the pods/portforward websocket
// (v4.channel.k8s.io) with a bearer token and copies bytes both ways until either side closes.
// Channel 0 carries data, channel 1 errors; the API server opens each with a frame holding the
// port as two little-endian bytes, which is not data. kubectl carries every connection over one
// SPDY (or SPDY-over-websocket) connection opened at start; this protocol has no stream id, so
// the stand-in opens one websocket per connection, as den server does for a new tunnel. The
// preview bench compares den server's port preview with it. Standard library only; plain HTTP
// (the bench's fake API server).
//
//	port-forward [-address 127.0.0.1] [-port 0] URL   (URL with ?ports=REMOTE; token in DEN_BENCH_TOKEN)
//
// Once listening it prints `Forwarding from ADDRESS:PORT -> REMOTE`, as kubectl does.
package main

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
)

const (
	dataChannel  = 0
	errorChannel = 1
	opBinary     = 0x2
	opClose      = 0x8
	opPing       = 0x9
	opPong       = 0xa
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "port-forward: "+format+"\n", args...)
	os.Exit(1)
}

// wsConn is the client end of one websocket: frames out are masked, as RFC 6455 requires of a
// client; writes come from the copier and from pong answers, so they are serialised.
type wsConn struct {
	conn net.Conn
	in   *bufio.Reader
	mu   sync.Mutex
	out  []byte
}

func (w *wsConn) writeFrame(opcode byte, parts ...[]byte) error {
	length := 0
	for _, p := range parts {
		length += len(p)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.out[:0]
	out = append(out, 0x80|opcode)
	switch {
	case length < 126:
		out = append(out, 0x80|byte(length))
	case length < 1<<16:
		out = append(out, 0x80|126, byte(length>>8), byte(length))
	default:
		out = append(out, 0x80|127)
		out = binary.BigEndian.AppendUint64(out, uint64(length))
	}
	var key [4]byte
	rand.Read(key[:])
	out = append(out, key[:]...)
	start := len(out)
	for _, p := range parts {
		out = append(out, p...)
	}
	for i := range out[start:] {
		out[start+i] ^= key[i&3]
	}
	w.out = out
	_, err := w.conn.Write(out)
	return err
}

// readMessage returns the next data message (continuation frames joined) into buf's storage;
// it answers pings and returns io.EOF on a close frame.
func (w *wsConn) readMessage(buf []byte) ([]byte, error) {
	var header [8]byte
	msg := buf[:0]
	for {
		if _, err := io.ReadFull(w.in, header[:2]); err != nil {
			return nil, err
		}
		fin, opcode := header[0]&0x80 != 0, header[0]&0x0f
		length := uint64(header[1] & 0x7f)
		switch length {
		case 126:
			if _, err := io.ReadFull(w.in, header[:2]); err != nil {
				return nil, err
			}
			length = uint64(binary.BigEndian.Uint16(header[:2]))
		case 127:
			if _, err := io.ReadFull(w.in, header[:8]); err != nil {
				return nil, err
			}
			length = binary.BigEndian.Uint64(header[:8])
		}
		if opcode >= 0x8 {
			control := make([]byte, length)
			if _, err := io.ReadFull(w.in, control); err != nil {
				return nil, err
			}
			switch opcode {
			case opClose:
				w.writeFrame(opClose, control[:min(len(control), 2)])
				return nil, io.EOF
			case opPing:
				if err := w.writeFrame(opPong, control); err != nil {
					return nil, err
				}
			}
			continue
		}
		start := len(msg)
		if uint64(cap(msg)-start) < length {
			grown := make([]byte, start, start+int(length))
			copy(grown, msg)
			msg = grown
		}
		msg = msg[:start+int(length)]
		if _, err := io.ReadFull(w.in, msg[start:]); err != nil {
			return nil, err
		}
		if fin {
			return msg, nil
		}
	}
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// dial opens the portforward websocket; a refused upgrade is returned with the API server's Status.
func dial(u *url.URL, token string) (*wsConn, error) {
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, 16)
	rand.Read(nonce)
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Protocol: v4.channel.k8s.io\r\nAuthorization: Bearer %s\r\n\r\n",
		u.RequestURI(), u.Host, base64.StdEncoding.EncodeToString(nonce), token)
	in := bufio.NewReaderSize(conn, 64<<10)
	res, err := http.ReadResponse(in, nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if res.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		conn.Close()
		return nil, fmt.Errorf("upgrade refused: %d %s", res.StatusCode, body)
	}
	return &wsConn{conn: conn, in: in}, nil
}

// forward carries one accepted connection over its own websocket until either side closes.
func forward(local net.Conn, u *url.URL, token string, remote int) {
	defer local.Close()
	ws, err := dial(u, token)
	if err != nil {
		fmt.Fprintf(os.Stderr, "E an error occurred forwarding %d: %v\n", remote, err)
		return
	}
	defer ws.conn.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 32<<10)
		channel := []byte{dataChannel}
		for {
			n, err := local.Read(buf)
			if n > 0 {
				if ws.writeFrame(opBinary, channel, buf[:n]) != nil {
					return
				}
			}
			if err != nil {
				ws.writeFrame(opClose, []byte{0x03, 0xe8})
				return
			}
		}
	}()
	prefixed := map[byte]bool{}
	buf := make([]byte, 64<<10)
	for {
		msg, err := ws.readMessage(buf)
		if err != nil {
			break
		}
		if cap(msg) > cap(buf) {
			buf = msg[:0]
		}
		if len(msg) == 0 {
			continue
		}
		channel, payload := msg[0], msg[1:]
		if !prefixed[channel] {
			prefixed[channel] = true
			if len(payload) < 2 {
				continue
			}
			payload = payload[2:]
		}
		if len(payload) == 0 {
			continue
		}
		if channel == errorChannel {
			fmt.Fprintf(os.Stderr, "E an error occurred forwarding %d: %s\n", remote, payload)
			break
		}
		if channel == dataChannel {
			if _, err := local.Write(payload); err != nil {
				break
			}
		}
	}
	local.Close()
	ws.conn.Close()
	<-done
}

func main() {
	address := flag.String("address", "127.0.0.1", "local address to listen on")
	port := flag.Int("port", 0, "local port to listen on (0: any free one)")
	flag.Parse()
	if flag.NArg() != 1 {
		fail("usage: port-forward [-address A] [-port P] URL")
	}
	u, err := url.Parse(flag.Arg(0))
	if err != nil {
		fail("%v", err)
	}
	remote, err := strconv.Atoi(u.Query().Get("ports"))
	if err != nil {
		fail("the URL must name one port in ?ports=: %v", err)
	}
	token := os.Getenv("DEN_BENCH_TOKEN")
	listener, err := net.Listen("tcp", net.JoinHostPort(*address, strconv.Itoa(*port)))
	if err != nil {
		fail("%v", err)
	}
	fmt.Printf("Forwarding from %s -> %d\n", listener.Addr(), remote)
	for {
		local, err := listener.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			fail("%v", err)
		}
		go forward(local, u, token, remote)
	}
}
