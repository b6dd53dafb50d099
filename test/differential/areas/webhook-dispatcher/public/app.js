// The dashboard's script: logs the deliveries the worker lists.
fetch('/api/deliveries')
  .then((response) => response.json())
  .then((rows) => console.log('deliveries', rows));
