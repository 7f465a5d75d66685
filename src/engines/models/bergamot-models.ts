import type { ModelEntry, ModelFile } from './types.ts';

// Mozilla's Firefox Translations models (mozilla/firefox-translations-models,
// the tiny students Firefox ships: Marian transformers with int8 weights,
// about 17 MB each, a model per direction), from the repository's Git LFS
// at the commit pinned here, gzip-compressed as it keeps them. Installed as
// model.bin, lex.s2t.bin (the lexical shortlist) and vocab.spm. The models are
// Mozilla's (MPL-2.0 with the repository); their quality figures are
// Mozilla's (the repository's evaluation: COMET and BLEU against Google,
// Microsoft and others, per pair).

/** The repository's LFS files at the pinned commit. */
const FILES = 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny';

/** A file's size in bytes and its pinned SHA-256 (of the gzip-compressed file, as downloaded). */
type Pinned = [size: number, sha256: string];

/** One direction's model: its three files, named in the repository as each pair's are. */
function bergamotPair(from: string, to: string, pins: { model: Pinned; lex: Pinned; vocab: Pinned }): ModelEntry {
  const pair = `${from}${to}`;
  const file = (path: string, name: string, [size, sha256]: Pinned): ModelFile => ({ path, url: `${FILES}/${pair}/${name}.gz`, size, sha256, gunzip: true });
  return {
    name: `bergamot-${from}-${to}`, kind: 'translate', engine: 'bergamot', languages: [from, to],
    license: 'MPL-2.0', source: `https://github.com/mozilla/firefox-translations-models/tree/main/models/tiny/${pair}`,
    about: `Firefox Translations ${from}→${to} (tiny): neural translation on the CPU, about 17 MB`,
    files: [
      file('model.bin', `model.${pair}.intgemm.alphas.bin`, pins.model),
      file('lex.s2t.bin', `lex.50.50.${pair}.s2t.bin`, pins.lex),
      file('vocab.spm', `vocab.${pair}.spm`, pins.vocab),
    ],
  };
}

export const BERGAMOT_MODELS: readonly ModelEntry[] = [
  bergamotPair('en', 'es', {
    model: [12602853, '2f2cdfb25d855c7c4dd874c2d5d97154339ca9e93c5336c2ec0236415ffcb1ae'],
    lex: [1720700, 'ada43ef1592f2f8f2ab26125358a814f7704f28ab77829a859846d21630f28fb'],
    vocab: [414566, '97fd4de57bc3dd9daf15216f84df1d1f1f32e57adfac0c89332a2dbf466a857f'],
  }),
  bergamotPair('es', 'en', {
    model: [13215960, '03ef9234003b450b0b94f84d683bd2e215bc0a72db2bdac6ebe503356dfe73c6'],
    lex: [1978538, 'aa6c3a148854089e9f2b51d8a49fef896fad658dc1b4d8760a0b293254c03fde'],
    vocab: [414566, '0148a29b7145e61871846bfda323a9cf70d1e559f14e161d5410423febdeda74'],
  }),
  bergamotPair('en', 'pt', {
    model: [13099731, '7d32a94b48c6609e076117af40de560e000885f6729056215418f61a31251889'],
    lex: [2354273, 'e772b2d9f6b328b95a4dd20382b2d0f10c8566af697ce34c68b080eb0b767ae0'],
    vocab: [410584, '2fa8f20786781f422876374326b4844cad915b3570c7bc390d154129743a6659'],
  }),
  bergamotPair('pt', 'en', {
    model: [13204180, '9a2154a22b49d74fa62ce09a5dbcf0e5bc2653a83c882334b2e7392e8eb6a402'],
    lex: [2639080, '591c5f0e825bd45b7878320d817c19e07052c8f07447fbed86e0adcd590992f9'],
    vocab: [410584, '41d51de148610731a8508273636f22430e783a955a2c4d0210ef482ae22764a4'],
  }),
  bergamotPair('en', 'fr', {
    model: [12293754, 'f39efbb6ab154967e2762f7c4baa0ff2f2fa08f32bfe5f6d29b787726476e828'],
    lex: [4177155, 'ed5eaebf198b787b718b81948ddb184780a559e6eefdb7416fdf405ef3e50576'],
    vocab: [419721, '254b039b3a79bb6c1a28dc61b1c7b5b192adda3d05650ccd5de99b6076495a65'],
  }),
  bergamotPair('fr', 'en', {
    model: [12641501, '4f5618b93d08bd82bdafc096b5cdfe459e24b263f0a5a23dcf641a070ebb60b5'],
    lex: [4761904, '17b933f2b42516ed0d325dd862ee7c50acc74ffc5d2a66059b357b931f788df7'],
    vocab: [419721, 'e90e0e635234445df4defafdea8aff23f8a0d68c73744462c021b5dbff36e55f'],
  }),
  bergamotPair('en', 'it', {
    model: [13267138, 'da2be6a5f495ccfa945e2dfede4b14fa96cc85d2725fe2f0833db55ace8ac476'],
    lex: [2441969, '85e836ec99e93b6ade5f26bb38e260b4677ba22fb86d2e912b383527b6dcfe56'],
    vocab: [408834, 'b1e1753f9be03fa25f4540f3dd23efc1134a934984f899df2cbdb41d9ce64e89'],
  }),
  bergamotPair('it', 'en', {
    model: [13220889, '0640cceb304426175ae142fa2293397020ea1111cf559571aa87b2327fb37a02'],
    lex: [2743096, 'f9c0e038bd876da57866a2938594568d64f4d0e80e9bc6236bc05b226f883c2a'],
    vocab: [408834, '742acd87cb9e7a6e06f934ae2edb71247f265d7563dde51f2e12245376f0b4cc'],
  }),
  bergamotPair('en', 'de', {
    model: [12768493, 'da21fcd90a6caa40a0b246d233c8e5f5ad7aa9a1aa98eece09682820d35bb2a6'],
    lex: [2113181, 'd6606aecd47624e86721ed4762ba47be07aeb0b2dc004fccd121f2eb1f98bddc'],
    vocab: [410738, '817cd1881b6157ab084048b5d2541b5327b6b1d93652c9805e46c91391b9404f'],
  }),
  bergamotPair('de', 'en', {
    model: [12995752, '0c2798a6a42885877b00f3379416e40e7c748975b9e4b8a7765bab9cb6d2b6f6'],
    lex: [2657472, 'a6225f83acca69994aace7f4b295b31e98c579bb0ce92e41486dec9881c90647'],
    vocab: [410738, 'ad7d4180eb98cae576875518721254e9fa9887cf1702e385c63f76445a5024fa'],
  }),
];
