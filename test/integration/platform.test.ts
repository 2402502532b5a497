// The whole platform on this machine: the real `den manager`, `den server` and `den gateway`
// processes (bin/den.js, each under its own ServiceAccount token) against the fake API
// server, with the harness playing the StatefulSet controller and the kubelet, and the real
// OpenSSH client and `den users add` as a person runs them.
import { expect } from 'chai';
import { LocalPlatform } from '../support/platform.js';
import { platformJourney } from './journey.js';

describe('Den on this machine: a person from sign-up to SSH and back', function () {
  this.timeout(60_000);
  const platform = new LocalPlatform();

  before(async function () {
    this.timeout(60_000);
    platform.suffix = 'it';
    await platform.start();
  });

  after(async function () {
    this.timeout(20_000);
    await platform.stop();
  });

  platformJourney(() => platform);

  it('none of the processes has crashed along the way', () => {
    for (const p of Object.values(platform.processes)) expect(p.running, `den ${p.role}:\n${p.tail()}`).to.equal(true);
  });
});
