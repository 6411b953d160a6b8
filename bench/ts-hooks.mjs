// Lets Node run the TypeScript sources in place (bench only): src/ imports its siblings with
// the `.js` suffix that tsc (NodeNext) wants, so a relative `./x.js` that does not exist is
// resolved to `./x.ts`. Used with --experimental-transform-types (src has constructor
// parameter properties, which plain type stripping rejects):
//   node --experimental-transform-types --import ./bench/ts-hooks.mjs bench/inventory.ts
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (error?.code === 'ERR_MODULE_NOT_FOUND' && /^\.{1,2}\/.*\.js$/.test(specifier)) {
        return nextResolve(specifier.replace(/\.js$/, '.ts'), context);
      }
      throw error;
    }
  },
});
