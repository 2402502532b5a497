// x509check hands Den's webhook certificates to Go's crypto/x509, the parser kube-apiserver
// uses for a webhook's caBundle and for the certificate the webhook serves.
//
//	x509check -ca bundle.pem -cert tls.pem [-at 2026-01-01T00:00:00Z] host...
//
// Every CA of the bundle is parsed on its own, as client-go does (one bad CA refuses the whole
// bundle); the serving certificate is verified for each host (a DNS name or an IP address) as a
// TLS server certificate. One line per finding on stdout; the exit status is 1 if any failed.
package main

import (
	"crypto/x509"
	"encoding/pem"
	"flag"
	"fmt"
	"os"
	"time"
)

func readCerts(path string) ([]*x509.Certificate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var certs []*x509.Certificate
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("failed to parse certificate: %w", err)
		}
		certs = append(certs, cert)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("no certificate in %s", path)
	}
	return certs, nil
}

func main() {
	caPath := flag.String("ca", "", "PEM bundle of trusted CAs (the caBundle)")
	certPath := flag.String("cert", "", "PEM of the serving certificate")
	at := flag.String("at", "", "verification time, RFC 3339 (default: now)")
	flag.Parse()
	now := time.Now()
	if *at != "" {
		t, err := time.Parse(time.RFC3339, *at)
		if err != nil {
			fmt.Printf("bad -at: %v\n", err)
			os.Exit(2)
		}
		now = t
	}
	failed := false
	fail := func(format string, args ...any) {
		failed = true
		fmt.Printf(format+"\n", args...)
	}
	roots := x509.NewCertPool()
	cas, err := readCerts(*caPath)
	if err != nil {
		fail("ca: %v", err)
	}
	for _, ca := range cas {
		roots.AddCert(ca)
	}
	served, err := readCerts(*certPath)
	if err != nil {
		fail("cert: %v", err)
	}
	if !failed {
		for _, host := range flag.Args() {
			_, err := served[0].Verify(x509.VerifyOptions{Roots: roots, DNSName: host, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
			if err != nil {
				fail("verify %s: %v", host, err)
			} else {
				fmt.Printf("verify %s: ok\n", host)
			}
		}
	}
	if failed {
		os.Exit(1)
	}
}
