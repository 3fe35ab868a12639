import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';
import sharp from 'sharp';
import { businessRegistrationCheckDigit } from '../../src/domain/business-registration-number.ts';
import { corporateRegistrationCheckDigit } from '../../src/domain/corporate-registration-number.ts';

// Realistic business registration certificates (사업자등록증) made from facts: the layout of the
// real certificate (title, kind, 등록번호, 상호/법인명, 대표자/성명, 개업연월일, 법인등록번호,
// 사업장 소재지, 사업의 종류 업태/종목, 발급 사유, issue date and the issuing tax office), as a
// text PDF (pdfkit, NanumGothic) or as an image (sharp renders the same lines), and degraded
// like a phone photo: scaled down, slightly rotated, noisy, JPEG-compressed. Everything is made
// from a seed, so the tests and the accuracy benchmark regenerate what they read.

export type CertificateFacts = {
  kind: 'corporate' | 'individual';
  businessRegistrationNumber: string;
  organizationName: string;
  representativeName: string;
  openedOn: string;
  corporateRegistrationNumber: string | null;
  address: string;
  businessType: string;
  businessItem: string;
  issuedOn: string;
  taxOffice: string;
};

const require = createRequire(import.meta.url);
const FONT_FILE = require.resolve('@kfonts/nanum-gothic/src/NanumGothic.ttf');
const BOLD_FONT_FILE = require.resolve('@kfonts/nanum-gothic/src/NanumGothicBold.ttf');

const koreanDate = (date: string) => {
  const [year, month, day] = date.split('-');
  return `${year} 년 ${month} 월 ${day} 일`;
};
const hyphenatedBrn = (digits: string) =>
  `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}`;
const hyphenatedCrn = (digits: string) => `${digits.slice(0, 6)}-${digits.slice(6)}`;

type Line = { text: string; size: 'title' | 'kind' | 'body' | 'office'; centered?: boolean };

// The printed lines, top to bottom, as on the real certificate.
export function certificateLines(facts: CertificateFacts): Line[] {
  const corporate = facts.kind === 'corporate';
  const lines: Line[] = [
    { text: '사 업 자 등 록 증', size: 'title', centered: true },
    { text: corporate ? '( 법인사업자 )' : '( 일반과세자 )', size: 'kind', centered: true },
    { text: `등록번호 : ${hyphenatedBrn(facts.businessRegistrationNumber)}`, size: 'kind',
      centered: true },
    { text: `${corporate ? '법 인 명 ( 단 체 명 )' : '상          호'} : ${facts.organizationName}`,
      size: 'body' },
    { text: `${corporate ? '대    표    자' : '성          명'} : ${facts.representativeName}`,
      size: 'body' },
    { text: `개 업 연 월 일 : ${koreanDate(facts.openedOn)}`, size: 'body' },
  ];
  if (corporate && facts.corporateRegistrationNumber !== null) {
    lines.push({ text: `법인등록번호 : ${hyphenatedCrn(facts.corporateRegistrationNumber)}`,
      size: 'body' });
  }
  lines.push(
    { text: `사업장 소재지 : ${facts.address}`, size: 'body' },
    { text: `사업의 종류 : 업태 ${facts.businessType}`, size: 'body' },
    { text: `종목 ${facts.businessItem}`, size: 'body' },
    { text: '발 급 사 유 : 신규', size: 'body' },
    { text: koreanDate(facts.issuedOn), size: 'body', centered: true },
    { text: `${facts.taxOffice}장`, size: 'office', centered: true },
  );
  return lines;
}

const POINTS = { title: 26, kind: 15, body: 12, office: 18 } as const;

// A text PDF: one A4 page, the lines in NanumGothic with their text layer.
export function certificatePdf(facts: CertificateFacts): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: 60, info: { Title: '사업자등록증' } });
  doc.registerFont('regular', FONT_FILE);
  doc.registerFont('bold', BOLD_FONT_FILE);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve) =>
    doc.on('end', () => resolve(Buffer.concat(chunks))));
  let y = 80;
  for (const line of certificateLines(facts)) {
    doc.font(line.size === 'title' || line.size === 'office' ? 'bold' : 'regular')
      .fontSize(POINTS[line.size]);
    doc.text(line.text, 60, y, { width: 475, align: line.centered ? 'center' : 'left' });
    y += POINTS[line.size] * 2.4;
  }
  doc.end();
  return done;
}

const escapeMarkup = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

// The page as a clean PNG scan at `dpi` (an A4 page is 8.27 × 11.69 inches).
export async function certificateImage(facts: CertificateFacts, dpi = 150): Promise<Buffer> {
  const width = Math.round(8.27 * dpi);
  const height = Math.round(11.69 * dpi);
  const scale = dpi / 72;
  const composites: sharp.OverlayOptions[] = [];
  let y = 80 * scale;
  for (const line of certificateLines(facts)) {
    const weight = line.size === 'title' || line.size === 'office' ? 'bold' : 'normal';
    const rendered = await sharp({
      text: {
        text: `<span foreground="#151515" font_weight="${weight}">` +
          `${escapeMarkup(line.text)}</span>`,
        fontfile: weight === 'bold' ? BOLD_FONT_FILE : FONT_FILE,
        font: `NanumGothic ${POINTS[line.size]}`,
        dpi,
        rgba: true,
      },
    }).png().toBuffer({ resolveWithObject: true });
    const left = line.centered ? Math.max(0, Math.round((width - rendered.info.width) / 2))
      : Math.round(60 * scale);
    composites.push({ input: rendered.data, top: Math.round(y), left });
    y += POINTS[line.size] * 2.4 * scale;
  }
  return sharp({ create: { width, height, channels: 3, background: '#fdfdfb' } })
    .composite(composites).flatten({ background: '#fdfdfb' }).png().toBuffer();
}

export type Degradation = {
  // Width of the result as a share of the clean page's (a lower resolution).
  scale: number;
  // Degrees, clockwise.
  rotation: number;
  // Standard deviation of the Gaussian noise, in grey levels.
  noise: number;
  jpegQuality: number;
};

// A photo-like copy of a clean page: scaled, rotated, noisy and JPEG-compressed.
export async function degradeImage(clean: Buffer, degradation: Degradation): Promise<Buffer> {
  const { width = 0 } = await sharp(clean).metadata();
  const scaled = await sharp(clean).resize(Math.round(width * degradation.scale)).rotate(
    degradation.rotation, { background: '#e8e6e0' },
  ).raw().toBuffer({ resolveWithObject: true });
  // The noise is drawn from a seed made of the degradation itself (libvips' own noise is not
  // seeded), so the same degradation always makes the same photo and two runs of the benchmark
  // read the same images.
  const random = seededRandom(Math.floor(degradation.noise * 1e6) ^ Math.floor(degradation.scale
    * 1e6) ^ Math.floor(degradation.rotation * 1e6));
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  // Adds the noise around zero to every colour channel.
  const pixels = Buffer.from(scaled.data);
  for (let index = 0; index < pixels.length; index += 1) {
    if (index % scaled.info.channels > 2) continue;
    pixels[index] = Math.max(0, Math.min(255,
      Math.round(pixels[index]! + degradation.noise * gaussian())));
  }
  return sharp(pixels, { raw: scaled.info }).jpeg({ quality: degradation.jpegQuality })
    .toBuffer();
}

// A deterministic pseudo-random source (mulberry32), so a seed always makes the same set.
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const SURNAMES = ['김', '이', '박', '최', '정', '강', '조', '윤', '장', '임', '한', '오', '서', '신'];
const GIVEN = ['민준', '서연', '도윤', '지우', '하준', '서윤', '은우', '지민', '현우', '수아',
  '영희', '철수', '동현', '미경', '성호', '유진'];
const NAME_STEMS = ['한빛', '새솔', '다온', '푸른숲', '미래로', '누리', '가온', '온새미', '별빛',
  '해오름', '단비', '바른길', '이음', '두리'];
const NAME_ENDS = ['테크', '상사', '푸드', '물산', '디자인', '소프트', '건설', '유통', '상회',
  '컴퍼니'];
const CITIES = [['서울특별시', ['강남구', '마포구', '종로구', '송파구']],
  ['부산광역시', ['해운대구', '수영구', '중구']], ['경기도', ['성남시 분당구', '수원시 영통구']],
  ['대전광역시', ['유성구', '서구']]] as const;
const ROADS = ['테헤란로', '월드컵북로', '세종대로', '올림픽로', '해운대로', '판교역로', '대학로'];
const INDUSTRIES = [['정보통신업', '응용 소프트웨어 개발 및 공급'], ['도매 및 소매업', '식료품 소매'],
  ['제조업', '금속 가공제품'], ['건설업', '실내 건축공사'], ['서비스업', '경영 컨설팅'],
  ['음식점업', '한식 일반 음식점']] as const;
const OFFICES = ['강남세무서', '마포세무서', '종로세무서', '해운대세무서', '분당세무서',
  '유성세무서', '수영세무서'];

const pick = <T>(random: () => number, list: readonly T[]): T =>
  list[Math.floor(random() * list.length)]!;
const digits = (random: () => number, count: number) =>
  Array.from({ length: count }, () => Math.floor(random() * 10)).join('');
const pad = (value: number) => String(value).padStart(2, '0');
const below = (random: () => number, count: number) => Math.floor(random() * count);
const dateBetween = (random: () => number, fromYear: number, toYear: number) =>
  `${fromYear + below(random, toYear - fromYear + 1)}-${pad(1 + below(random, 12))}-` +
  `${pad(1 + below(random, 28))}`;

// Invented facts with valid numbers; `index` alternates corporations and sole proprietors.
export function randomFacts(random: () => number, index: number): CertificateFacts {
  const corporate = index % 2 === 0;
  const prefix = String(101 + Math.floor(random() * 800));
  const type = corporate ? pick(random, ['81', '86', '87', '88'])
    : pad(1 + Math.floor(random() * 78));
  const nine = `${prefix}${type}${digits(random, 4)}`;
  const businessRegistrationNumber = `${nine}${businessRegistrationCheckDigit(`${nine}0`)}`;
  const twelve = `${pick(random, ['1101', '1301', '1201', '1311'])}11${digits(random, 6)}`;
  const corporateRegistrationNumber = corporate
    ? `${twelve}${corporateRegistrationCheckDigit(`${twelve}0`)}` : null;
  const stem = `${pick(random, NAME_STEMS)}${pick(random, NAME_ENDS)}`;
  const organizationName = corporate
    ? (random() < 0.5 ? `주식회사 ${stem}` : `(주)${stem}`) : stem;
  const [city, districts] = pick(random, CITIES);
  const address = `${city} ${pick(random, districts)} ${pick(random, ROADS)} ` +
    `${1 + Math.floor(random() * 300)}, ${2 + Math.floor(random() * 12)}층`;
  const [businessType, businessItem] = pick(random, INDUSTRIES);
  const openedOn = dateBetween(random, 1998, 2023);
  return {
    kind: corporate ? 'corporate' : 'individual',
    businessRegistrationNumber,
    organizationName,
    representativeName: `${pick(random, SURNAMES)}${pick(random, GIVEN)}`,
    openedOn,
    corporateRegistrationNumber,
    address,
    businessType,
    businessItem,
    issuedOn: dateBetween(random, 2024, 2025),
    taxOffice: pick(random, OFFICES),
  };
}

// Photo-like degradations drawn from the seed: 60–85 % of a 150 dpi scan, up to ±2°, noise,
// JPEG quality 55–85.
export function randomDegradation(random: () => number): Degradation {
  return {
    scale: 0.6 + random() * 0.25,
    rotation: (random() * 4) - 2,
    noise: 6 + random() * 10,
    jpegQuality: 55 + Math.floor(random() * 31),
  };
}
