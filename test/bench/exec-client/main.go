// A pods/exec client as a process of its own, the way `kubectl exec` runs beside a shell: it
// opens the channel websocket (v5, else v4) with a bearer token, copies channel 1 to stdout and
// channel 2 to stderr as the frames arrive, and exits with the command's exit code from the
// channel-3 Status. The relay bench compares it with OpenSSH's `ssh` through den gateway.
// Standard library only; plain HTTP (the bench's fake API server).
//
//	exec-client URL   (token in DEN_BENCH_TOKEN)
package main

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "exec-client: "+format+"\n", args...)
	os.Exit(255)
}

type status struct {
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Details struct {
		Causes []struct {
			Reason  string `json:"reason"`
			Message string `json:"message"`
		} `json:"causes"`
	} `json:"details"`
}

func exitCode(body []byte) int {
	var s status
	if err := json.Unmarshal(body, &s); err != nil {
		fail("unreadable status: %v", err)
	}
	if s.Status == "Success" {
		return 0
	}
	for _, c := range s.Details.Causes {
		if c.Reason == "ExitCode" {
			var code int
			fmt.Sscan(c.Message, &code)
			return code
		}
	}
	fmt.Fprintln(os.Stderr, s.Message)
	return 255
}

func main() {
	if len(os.Args) != 2 {
		fail("usage: exec-client URL")
	}
	u, err := url.Parse(os.Args[1])
	if err != nil {
		fail("%v", err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		fail("%v", err)
	}
	nonce := make([]byte, 16)
	rand.Read(nonce)
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Protocol: v5.channel.k8s.io, v4.channel.k8s.io\r\nAuthorization: Bearer %s\r\n\r\n",
		u.RequestURI(), u.Host, base64.StdEncoding.EncodeToString(nonce), os.Getenv("DEN_BENCH_TOKEN"))
	in := bufio.NewReaderSize(conn, 64<<10)
	res, err := http.ReadResponse(in, nil)
	if err != nil {
		fail("%v", err)
	}
	if res.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(res.Body)
		fail("upgrade refused: %d %s", res.StatusCode, body)
	}
	var header [14]byte
	payload := make([]byte, 128<<10)
	channel := -1
	var statusBody []byte
	code := -1
	for {
		if _, err := io.ReadFull(in, header[:2]); err != nil {
			break
		}
		fin, opcode := header[0]&0x80 != 0, header[0]&0x0f
		length := uint64(header[1] & 0x7f)
		switch length {
		case 126:
			io.ReadFull(in, header[2:4])
			length = uint64(binary.BigEndian.Uint16(header[2:4]))
		case 127:
			io.ReadFull(in, header[2:10])
			length = binary.BigEndian.Uint64(header[2:10])
		}
		if uint64(cap(payload)) < length {
			payload = make([]byte, length)
		}
		body := payload[:length]
		if _, err := io.ReadFull(in, body); err != nil {
			fail("%v", err)
		}
		if opcode == 0x8 {
			break
		}
		if opcode >= 0x8 {
			continue // ping, pong: the bench's server sends none
		}
		if opcode != 0 {
			channel = -1
		}
		if channel < 0 && len(body) > 0 {
			channel, body = int(body[0]), body[1:]
		}
		switch channel {
		case 1:
			os.Stdout.Write(body)
		case 2:
			os.Stderr.Write(body)
		case 3:
			statusBody = append(statusBody, body...)
			if fin {
				code = exitCode(statusBody)
			}
		}
	}
	if code < 0 {
		fail("the stream ended without an exit status")
	}
	os.Exit(code)
}
