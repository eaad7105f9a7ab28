// Japanese names beside the English words the server uses.
export const VERDICT_JA = {
  complete: '完全作',
  flawed: '不完全作',
  nomate: '不詰',
  unknown: '未確定',
  'bad-line': '手順不正',
  error: 'エラー',
};

export const FLAW_JA = {
  yozume: '余詰',
  'last-move-alt': '最終手余詰',
  komaamari: '駒余り',
  hendou: '変同',
  henchou: '変長',
  higentei: '非限定',
  'tejun-zengo': '手順前後',
  ukai: '迂回',
  hayazume: '早詰',
  nomate: '不詰',
  'not-longest-defence': '最長でない応手',
  illegal: '反則手',
  'not-check': '王手でない',
  'not-mate': '詰んでいない',
};

export const ROLE_JA = {
  checks: '王手',
  'blocks-escape': '逃げ道封鎖',
  'can-capture-checker': '王手駒を取れる',
  'prevents-check': '王手を遮る',
  movable: '動ける',
  'prevents-move': '動きを止める',
  'can-capture': '取れる',
  'can-be-captured': '取られうる',
};

// One letter per role for the marks drawn on pieces.
export const ROLE_MARK = {
  checks: '王',
  'blocks-escape': '塞',
  'can-capture-checker': '払',
  'prevents-check': '遮',
  movable: '動',
  'prevents-move': '止',
  'can-capture': '取',
  'can-be-captured': '被',
};

export const KANJI_DIGIT = ['', '一', '二', '三', '四', '五', '六', '七', '八', '九'];
export const flawJa = (f) => f.kind_ja || FLAW_JA[f.kind] || f.kind;
