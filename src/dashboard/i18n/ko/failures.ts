// The home page's recent failures.
export const koFailures = {
  'home.failures': '최근 실패',
  'home.failuresNone': '최근 실패가 없습니다.',
  'home.failedInvoices': '실패한 세금계산서',
  'home.failedDeliveries': '실패한 웹훅 전달',
  'home.failureWhen': '시각',
  'home.failureWhat': '대상',
  'home.failureWhy': '사유',
} as const;
