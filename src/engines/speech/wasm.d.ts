// The two WebAssembly builds ship no types: each default-exports a factory of its Emscripten module.
declare module '@echogarden/svoxpico-wasm' {
  const factory: (moduleArg?: object) => Promise<any>;
  export default factory;
}
declare module '@echogarden/speex-resampler-wasm' {
  const factory: (moduleArg?: object) => Promise<any>;
  export default factory;
}
