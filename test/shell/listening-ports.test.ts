import { expect } from 'chai';
import { listeningPorts } from '../../shell/listening-ports.js';

// As `cat /proc/net/tcp /proc/net/tcp6` prints them (Linux 6.1): headers, LISTEN rows (0A),
// an ESTABLISHED row (01) and a TIME_WAIT row (06) whose ports must not count.
const PROC_NET_TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 31337 1 0000000000000000 100 0 0 10 0
   1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 31338 1 0000000000000000 100 0 0 10 0
   2: 0100007F:0BB8 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000  1000        0 31339 1 0000000000000000 20 4 30 10 -1
   3: 0100007F:9C40 0100007F:0BB8 06 00000000:00000000 03:00000F9A 00000000     0        0 0 3 0000000000000000
  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:22B8 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 41000 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 41001 1 0000000000000000 100 0 0 10 0
`;

describe('listening ports from /proc/net/tcp and tcp6', () => {
  it('takes the local port of every LISTEN row of both tables, in hex, each once and ascending', () => {
    expect(listeningPorts(PROC_NET_TCP)).to.deep.equal([3000, 8080, 8888]);
  });

  it('counts no connected or closing socket, and nothing from text that is not a socket table', () => {
    expect(listeningPorts(PROC_NET_TCP.split('\n').filter((l) => !l.includes(' 0A ')).join('\n'))).to.deep.equal([]);
    expect(listeningPorts('cat: /proc/net/tcp6: No such file or directory\n')).to.deep.equal([]);
    expect(listeningPorts('   0: 0100007F:0000 00000000:0000 0A 00000000:00000000\n')).to.deep.equal([]);
  });
});
