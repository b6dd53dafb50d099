fetch('/api/deliveries').then((r) => r.json()).then((rows) => {
  document.getElementById('deliveries').innerHTML = rows.map((row) => `<li>${row.sender}: ${row.kind} ${row.amount}</li>`).join('');
});
