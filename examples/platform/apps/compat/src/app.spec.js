// Excluded by **/*.spec.*: a test of the compat app.
console.log('ok');
