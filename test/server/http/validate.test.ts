import { expect } from 'chai';
import { HttpError } from '../../../koa/errors.js';
import { exact, fields, validate } from '../../../server/http/validate.js';

function problem(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(HttpError);
    return err as HttpError;
  }
  throw new Error('expected a validation failure');
}

describe('validate', () => {
  const schema = exact({
    name: fields.string().required('name is required'),
    count: fields.integer().min(1, 'count must be at least 1'),
    flag: fields.boolean(),
    tags: fields.strings(),
    nested: exact({ inner: fields.string() }),
  });

  it('returns the value when it matches the schema', () => {
    expect(validate(schema, { name: 'a', count: 2, flag: true, tags: ['x'], nested: { inner: 'y' } })).to.deep.equal({ name: 'a', count: 2, flag: true, tags: ['x'], nested: { inner: 'y' } });
  });

  it('answers 400 naming an unknown field, nested ones with their path', () => {
    const err = problem(() => validate(schema, { name: 'a', colour: 'red', nested: { other: 1 } }));
    expect(err.status).to.equal(400);
    expect(err.message).to.contain('unknown field colour');
    expect(err.message).to.contain('unknown field nested.other');
  });

  it('refuses values of the wrong type instead of coercing them', () => {
    const err = problem(() => validate(schema, { name: 5, count: '2', flag: 'yes', tags: ['a', 3] }));
    expect(err.message).to.contain('name must be a string');
    expect(err.message).to.contain('count must be an integer');
    expect(err.message).to.contain('flag must be true or false');
    expect(err.message).to.contain('tags[1] must be a string');
  });

  it('names a missing required field', () => {
    expect(problem(() => validate(schema, {})).message).to.equal('name is required');
  });

  it('refuses a body that is not a JSON object', () => {
    for (const body of [[], 'text', 3, null]) expect(problem(() => validate(schema, body)).message).to.equal('the request body must be a JSON object');
  });

  it('refuses a non-integer number', () => {
    expect(problem(() => validate(schema, { name: 'a', count: 1.5 })).message).to.equal('count must be an integer');
  });
});
