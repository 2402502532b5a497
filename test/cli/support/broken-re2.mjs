// Preloaded with `node --import` by test/cli/den.test.ts: the native module re2 fails to load,
// whether imported or required, as a build for another Node.js version does.
import Module, { register } from 'node:module';

const MESSAGE = "The module '/den/node_modules/re2/build/Release/re2.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 127.";

register(`data:text/javascript,${encodeURIComponent(`export async function resolve(specifier, context, next) {
  if (specifier === 're2') throw new Error(${JSON.stringify(MESSAGE)});
  return next(specifier, context);
}`)}`);

const load = Module._load;
Module._load = function loadWithoutRe2(request, ...rest) {
  if (request === 're2') throw new Error(MESSAGE);
  return load.call(this, request, ...rest);
};
