// What a Failed workspace's page says, by the controller's reason: the one sentence, what to
// do, no connection; and how the progress tells the latest start from earlier ones.
import { expect } from 'chai';
import { failureOf } from '../../../server/pages/failure.js';
import { connectBlock } from '../../../web/templates/connect.js';
import type { WorkspaceView } from '../../../web/templates/format.js';
import { logsReadable, splitStarts, statusCard, type EventView } from '../../../web/templates/workspace.js';

function failed(reason: string, message = `the controller's words about ${reason}`): WorkspaceView {
  return {
    metadata: { name: 'dev', namespace: 'svc-alice' },
    spec: { imageRef: { name: 'ubuntu' }, running: true },
    status: {
      phase: 'Failed',
      endpoint: 'dev@ssh.example.com',
      conditions: [
        { type: 'Ready', status: 'False', reason, message },
        { type: 'Degraded', status: 'True', reason, message },
      ],
    },
  };
}

describe('a Failed workspace on its page', () => {
  it('sums each kind of trouble up in one sentence naming the catalog entry, keeping the controller\'s words for the fold', () => {
    const sentence = (reason: string) => {
      const f = failureOf(failed(reason), 'Ubuntu 24.04')!;
      return [f.kind, /<p class="reason" id="failure-sentence">([^<]*)<\/p>/.exec(statusCard(failed(reason), [], 0, f).text)?.[1]];
    };
    expect(sentence('ImagePullBackOff')).to.deep.equal(['image', 'dev cannot start: the image of the catalog entry &quot;Ubuntu 24.04&quot; (ubuntu) cannot be downloaded.']);
    expect(sentence('CreateContainerConfigError')).to.deep.equal(['config', 'dev cannot start: a Secret or ConfigMap it uses is missing.']);
    expect(sentence('RunContainerError')).to.deep.equal(['runtime', 'dev cannot start: the container runtime refuses to run the image of &quot;Ubuntu 24.04&quot; (ubuntu).']);
    expect(sentence('CrashLoopBackOff')).to.deep.equal(['crash', 'dev keeps stopping right after it starts.']);
    expect(sentence('InvalidSpec')).to.deep.equal(['other', 'dev cannot start.']);
    expect(failureOf(failed('ErrImagePull'), undefined)?.entry, 'an entry that cannot be read is named by its name').to.deep.equal({ name: 'ubuntu', title: undefined });
    expect(failureOf(failed('ErrImagePull', 'raw kubelet text'), 'Ubuntu')?.detail).to.equal('raw kubelet text');
  });

  it('is no failure when the workspace is not Failed', () => {
    const running: WorkspaceView = { ...failed('PodReady'), status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', reason: 'PodReady', message: 'ready' }] } };
    expect(failureOf(running, 'Ubuntu')).to.equal(undefined);
  });

  it('offers no ssh command or VS Code link, and reads the log only of a container that keeps restarting', () => {
    const ws = failed('ErrImagePull');
    expect(connectBlock(ws, '/home/dev').text).to.contain('cannot connect').and.not.to.contain('ssh dev@').and.not.to.contain('vscode:');
    expect(logsReadable(ws, failureOf(ws, 'Ubuntu'))).to.equal(false);
    const crashing = failed('CrashLoopBackOff');
    expect(logsReadable(crashing, failureOf(crashing, 'Ubuntu'))).to.equal(true);
    expect(connectBlock({ ...ws, status: { ...ws.status, phase: 'Running' } }, '/home/dev').text).to.contain('ssh dev@ssh.example.com');
  });
});

describe('the progress of a start', () => {
  const event = (uid: string, reason: string, at: string, type = 'Normal'): EventView => ({ reason, type, message: reason, lastTimestamp: at, involvedObject: { kind: 'Pod', name: 'dev-0', uid } });

  it("keeps the newest pod's events as the latest start and the others as earlier starts", () => {
    const events = [event('old', 'Failed', '2030-01-01T00:00:00Z', 'Warning'), event('new', 'Scheduled', '2030-01-01T01:00:00Z'), event('new', 'Started', '2030-01-01T01:00:05Z')];
    const { current, earlier } = splitStarts(events);
    expect(current.map((e) => e.reason)).to.deep.equal(['Scheduled', 'Started']);
    expect(earlier.map((e) => e.reason)).to.deep.equal(['Failed']);
    expect(splitStarts([{ reason: 'Started' }]).current, 'events without a pod UID are all one start').to.have.length(1);
  });

  it('gives each step its time after the first and folds the warnings of earlier starts', () => {
    const ws: WorkspaceView = { metadata: { name: 'dev' }, status: { phase: 'Running' } };
    const card = statusCard(ws, [event('old', 'Failed', '2030-01-01T00:00:00Z', 'Warning'), event('new', 'Scheduled', '2030-01-01T01:00:00Z'), event('new', 'Started', '2030-01-01T01:00:05Z')], Date.parse('2030-01-01T01:10:00Z')).text;
    expect(card).to.contain('<time datetime="2030-01-01T01:00:00Z">10 minutes ago</time> <strong>Scheduled</strong>');
    expect(card).to.contain('<time datetime="2030-01-01T01:00:05Z">+5 s</time> <strong>Started</strong>');
    expect(card).to.match(/<details class="history" data-fold="history"><summary>Warnings of earlier starts \(1\)<\/summary>.*Failed/s);
  });
});
