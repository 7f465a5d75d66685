import type { ModelEntry, ModelFile } from './types.ts';

// Mozilla's Firefox Translations models (mozilla/firefox-translations-models,
// the tiny students Firefox ships: Marian transformers with int8 weights,
// about 17 MB each, a model per direction), from the repository's Git LFS
// at the commit pinned here, gzip-compressed as it keeps them. Installed as
// model.bin, lex.s2t.bin (the lexical shortlist) and vocab.spm. The models are
// Mozilla's (MPL-2.0 with the repository); their quality figures are
// Mozilla's (the repository's evaluation: COMET and BLEU against Google,
// Microsoft and others, per pair).

function bergamotPair(from: string, to: string, files: ModelFile[]): ModelEntry {
  return {
    name: `bergamot-${from}-${to}`, kind: 'translate', engine: 'bergamot', languages: [from, to],
    license: 'MPL-2.0', source: `https://github.com/mozilla/firefox-translations-models/tree/main/models/tiny/${from}${to}`,
    about: `Firefox Translations ${from}→${to} (tiny): neural translation on the CPU, about 17 MB`,
    files,
  };
}

export const BERGAMOT_MODELS: readonly ModelEntry[] = [
  bergamotPair('en', 'es', [
    { path: 'model.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/enes/model.enes.intgemm.alphas.bin.gz', size: 12602853, sha256: '2f2cdfb25d855c7c4dd874c2d5d97154339ca9e93c5336c2ec0236415ffcb1ae', gunzip: true },
    { path: 'lex.s2t.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/enes/lex.50.50.enes.s2t.bin.gz', size: 1720700, sha256: 'ada43ef1592f2f8f2ab26125358a814f7704f28ab77829a859846d21630f28fb', gunzip: true },
    { path: 'vocab.spm', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/enes/vocab.enes.spm.gz', size: 414566, sha256: '97fd4de57bc3dd9daf15216f84df1d1f1f32e57adfac0c89332a2dbf466a857f', gunzip: true },
  ]),
  bergamotPair('es', 'en', [
    { path: 'model.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/esen/model.esen.intgemm.alphas.bin.gz', size: 13215960, sha256: '03ef9234003b450b0b94f84d683bd2e215bc0a72db2bdac6ebe503356dfe73c6', gunzip: true },
    { path: 'lex.s2t.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/esen/lex.50.50.esen.s2t.bin.gz', size: 1978538, sha256: 'aa6c3a148854089e9f2b51d8a49fef896fad658dc1b4d8760a0b293254c03fde', gunzip: true },
    { path: 'vocab.spm', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/esen/vocab.esen.spm.gz', size: 414566, sha256: '0148a29b7145e61871846bfda323a9cf70d1e559f14e161d5410423febdeda74', gunzip: true },
  ]),
  bergamotPair('en', 'pt', [
    { path: 'model.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/enpt/model.enpt.intgemm.alphas.bin.gz', size: 13099731, sha256: '7d32a94b48c6609e076117af40de560e000885f6729056215418f61a31251889', gunzip: true },
    { path: 'lex.s2t.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/enpt/lex.50.50.enpt.s2t.bin.gz', size: 2354273, sha256: 'e772b2d9f6b328b95a4dd20382b2d0f10c8566af697ce34c68b080eb0b767ae0', gunzip: true },
    { path: 'vocab.spm', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/enpt/vocab.enpt.spm.gz', size: 410584, sha256: '2fa8f20786781f422876374326b4844cad915b3570c7bc390d154129743a6659', gunzip: true },
  ]),
  bergamotPair('pt', 'en', [
    { path: 'model.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/pten/model.pten.intgemm.alphas.bin.gz', size: 13204180, sha256: '9a2154a22b49d74fa62ce09a5dbcf0e5bc2653a83c882334b2e7392e8eb6a402', gunzip: true },
    { path: 'lex.s2t.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/pten/lex.50.50.pten.s2t.bin.gz', size: 2639080, sha256: '591c5f0e825bd45b7878320d817c19e07052c8f07447fbed86e0adcd590992f9', gunzip: true },
    { path: 'vocab.spm', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/pten/vocab.pten.spm.gz', size: 410584, sha256: '41d51de148610731a8508273636f22430e783a955a2c4d0210ef482ae22764a4', gunzip: true },
  ]),
  bergamotPair('en', 'fr', [
    { path: 'model.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/enfr/model.enfr.intgemm.alphas.bin.gz', size: 12293754, sha256: 'f39efbb6ab154967e2762f7c4baa0ff2f2fa08f32bfe5f6d29b787726476e828', gunzip: true },
    { path: 'lex.s2t.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/enfr/lex.50.50.enfr.s2t.bin.gz', size: 4177155, sha256: 'ed5eaebf198b787b718b81948ddb184780a559e6eefdb7416fdf405ef3e50576', gunzip: true },
    { path: 'vocab.spm', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/enfr/vocab.enfr.spm.gz', size: 419721, sha256: '254b039b3a79bb6c1a28dc61b1c7b5b192adda3d05650ccd5de99b6076495a65', gunzip: true },
  ]),
  bergamotPair('fr', 'en', [
    { path: 'model.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/fren/model.fren.intgemm.alphas.bin.gz', size: 12641501, sha256: '4f5618b93d08bd82bdafc096b5cdfe459e24b263f0a5a23dcf641a070ebb60b5', gunzip: true },
    { path: 'lex.s2t.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/fren/lex.50.50.fren.s2t.bin.gz', size: 4761904, sha256: '17b933f2b42516ed0d325dd862ee7c50acc74ffc5d2a66059b357b931f788df7', gunzip: true },
    { path: 'vocab.spm', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/fren/vocab.fren.spm.gz', size: 419721, sha256: 'e90e0e635234445df4defafdea8aff23f8a0d68c73744462c021b5dbff36e55f', gunzip: true },
  ]),
  bergamotPair('en', 'it', [
    { path: 'model.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/enit/model.enit.intgemm.alphas.bin.gz', size: 13267138, sha256: 'da2be6a5f495ccfa945e2dfede4b14fa96cc85d2725fe2f0833db55ace8ac476', gunzip: true },
    { path: 'lex.s2t.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/enit/lex.50.50.enit.s2t.bin.gz', size: 2441969, sha256: '85e836ec99e93b6ade5f26bb38e260b4677ba22fb86d2e912b383527b6dcfe56', gunzip: true },
    { path: 'vocab.spm', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/enit/vocab.enit.spm.gz', size: 408834, sha256: 'b1e1753f9be03fa25f4540f3dd23efc1134a934984f899df2cbdb41d9ce64e89', gunzip: true },
  ]),
  bergamotPair('it', 'en', [
    { path: 'model.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/iten/model.iten.intgemm.alphas.bin.gz', size: 13220889, sha256: '0640cceb304426175ae142fa2293397020ea1111cf559571aa87b2327fb37a02', gunzip: true },
    { path: 'lex.s2t.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/iten/lex.50.50.iten.s2t.bin.gz', size: 2743096, sha256: 'f9c0e038bd876da57866a2938594568d64f4d0e80e9bc6236bc05b226f883c2a', gunzip: true },
    { path: 'vocab.spm', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/iten/vocab.iten.spm.gz', size: 408834, sha256: '742acd87cb9e7a6e06f934ae2edb71247f265d7563dde51f2e12245376f0b4cc', gunzip: true },
  ]),
  bergamotPair('en', 'de', [
    { path: 'model.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/ende/model.ende.intgemm.alphas.bin.gz', size: 12768493, sha256: 'da21fcd90a6caa40a0b246d233c8e5f5ad7aa9a1aa98eece09682820d35bb2a6', gunzip: true },
    { path: 'lex.s2t.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/ende/lex.50.50.ende.s2t.bin.gz', size: 2113181, sha256: 'd6606aecd47624e86721ed4762ba47be07aeb0b2dc004fccd121f2eb1f98bddc', gunzip: true },
    { path: 'vocab.spm', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/ende/vocab.ende.spm.gz', size: 410738, sha256: '817cd1881b6157ab084048b5d2541b5327b6b1d93652c9805e46c91391b9404f', gunzip: true },
  ]),
  bergamotPair('de', 'en', [
    { path: 'model.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/deen/model.deen.intgemm.alphas.bin.gz', size: 12995752, sha256: '0c2798a6a42885877b00f3379416e40e7c748975b9e4b8a7765bab9cb6d2b6f6', gunzip: true },
    { path: 'lex.s2t.bin', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/deen/lex.50.50.deen.s2t.bin.gz', size: 2657472, sha256: 'a6225f83acca69994aace7f4b295b31e98c579bb0ce92e41486dec9881c90647', gunzip: true },
    { path: 'vocab.spm', url: 'https://media.githubusercontent.com/media/mozilla/firefox-translations-models/e7957fc407441a5e3e35bbcbf9d60d9b35764618/models/tiny/deen/vocab.deen.spm.gz', size: 410738, sha256: 'ad7d4180eb98cae576875518721254e9fa9887cf1702e385c63f76445a5024fa', gunzip: true },
  ]),
];
