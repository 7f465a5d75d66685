import type { ModelEntry, ModelFile } from './types.ts';

// Piper's voices (rhasspy/piper-voices on Hugging Face, at the revision
// pinned here): one or two per language the product's rooms use most, each a
// VITS model and its settings (.onnx.json). Piper's code is MIT; each voice
// carries its recordings' licence, given here as its model card says (the
// lessac voice's allows non-commercial use only: ljspeech is the English
// voice to use otherwise). Installed as voice.onnx and voice.onnx.json; the
// piper engine writes what sherpa-onnx reads besides (engines/piper/prepare.ts).

/** The voices' files at the pinned revision. */
const FILES = 'https://huggingface.co/rhasspy/piper-voices/resolve/293cad0539066f86e6bce3b9780c472cc9157489';

/** A file's size in bytes and its pinned SHA-256. */
type Pinned = [size: number, sha256: string];

/** A voice (`en_US-ljspeech-medium`: locale, speaker, quality) and its two files, where the repository keeps each voice's. */
function piperVoice(o: { voice: string; locale: string; language: string; license: string; onnx: Pinned; json: Pinned }): ModelEntry {
  const lang = o.locale.split('-')[0]!;
  const [locale, speaker, quality] = o.voice.split('-') as [string, string, string];
  const url = `${FILES}/${lang}/${locale}/${speaker}/${quality}/${o.voice}.onnx`;
  const file = (path: string, at: string, [size, sha256]: Pinned): ModelFile => ({ path, url: at, size, sha256 });
  return {
    name: `piper-${o.voice}`, kind: 'speak', engine: 'piper', languages: [lang],
    license: o.license, source: `https://huggingface.co/rhasspy/piper-voices/tree/main/${lang}/${o.locale.replace('-', '_')}`,
    about: `Piper voice ${o.voice}: ${o.language} (${o.locale}), neural, 22 kHz`,
    files: [file('voice.onnx', url, o.onnx), file('voice.onnx.json', `${url}.json`, o.json)],
    settings: { locale: o.locale, voice: o.voice },
  };
}

export const PIPER_VOICES: readonly ModelEntry[] = [
  piperVoice({
    voice: 'en_US-ljspeech-medium', locale: 'en-US', language: 'English', license: 'public domain (LJ Speech)',
    onnx: [63531379, '6f52a751e2349abe7a76735eb09dc1875298c77ea2342ffd2fef79ff81b87f22'],
    json: [4972, '141d612cc0a95ed7efc1ca936b845c2364967f2e9217c5dbfcf69fc4d6c65860'],
  }),
  piperVoice({
    voice: 'en_US-lessac-medium', locale: 'en-US', language: 'English', license: 'Blizzard 2013 lessac licence: non-commercial use only',
    onnx: [63201294, '5efe09e69902187827af646e1a6e9d269dee769f9877d17b16b1b46eeaaf019f'],
    json: [4885, 'efe19c417bed055f2d69908248c6ba650fa135bc868b0e6abb3da181dab690a0'],
  }),
  piperVoice({
    voice: 'es_ES-davefx-medium', locale: 'es-ES', language: 'Spanish', license: 'CC0',
    onnx: [63201294, '6658b03b1a6c316ee4c265a9896abc1393353c2d9e1bca7d66c2c442e222a917'],
    json: [4817, '0e0dda87c732f6f38771ff274a6380d9252f327dca77aa2963d5fbdf9ec54842'],
  }),
  piperVoice({
    voice: 'es_MX-ald-medium', locale: 'es-MX', language: 'Spanish', license: 'Unlicense',
    onnx: [63201294, '019b3803293c93e34a206dd2e53a3889209a514e786fd7144f7b70196c579b63'],
    json: [4889, 'efab736e62e5321dd5d063d1b46e63c59ce655419816355b81d025c1a8d6b03c'],
  }),
  piperVoice({
    voice: 'pt_BR-faber-medium', locale: 'pt-BR', language: 'Portuguese', license: 'CC0',
    onnx: [63201294, '858555e3a064209c57088fe6bd70c4c3dc54d03eaa00c45d5ecaf43a33f95aa7'],
    json: [4855, '7e694de195ae3fc36dd732c445eb04fb49b649854893cb5506b978f0d50a1d6f'],
  }),
  piperVoice({
    voice: 'fr_FR-siwis-medium', locale: 'fr-FR', language: 'French', license: 'CC-BY-4.0',
    onnx: [63201294, '641d1ab097da2b81128c076810edb052b385decc8be3381814802a64a73baf99'],
    json: [4875, '39479916c2db192b5ac9764daddd0c744d83e023ad890c6976c0633ae4df8959'],
  }),
  piperVoice({
    voice: 'de_DE-thorsten-medium', locale: 'de-DE', language: 'German', license: 'CC0',
    onnx: [63201294, '7e64762d8e5118bb578f2eea6207e1a35a8e0c30595010b666f983fc87bb7819'],
    json: [4819, '974adee790533adb273a1ac88f49027d2a1b8f0f2cf4905954a4791e79264e85'],
  }),
  piperVoice({
    voice: 'it_IT-paola-medium', locale: 'it-IT', language: 'Italian', license: 'its dataset’s (paolapersico1/Voice-Dataset-Italian)',
    onnx: [63511038, '6fc918b5a0ea6137382833dddfa567bffbe6a5060c02043c87192ee59c04210c'],
    json: [7099, 'aea19c0a7fce29fbc359b93f10e7902854401e4c95ae2ea328ae516b15d296cf'],
  }),
];
