// mocha's spec reporter, followed by one plain closing line `N passed, N failed` that CI
// systems read whatever the test runner.
const Mocha = require('mocha');

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const s = runner.stats;
      process.stdout.write(`${s.passes} passed, ${s.failures} failed${s.pending ? `, ${s.pending} skipped` : ''}\n`);
    });
  }
}

module.exports = SpecWithSummary;
