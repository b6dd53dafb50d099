declare module '*.html' {
  const text: string;
  export default text;
}
declare module '*.txt' {
  const text: string;
  export default text;
}
declare module '*.md' {
  const text: string;
  export default text;
}
declare module '*.bin' {
  const data: ArrayBuffer;
  export default data;
}
